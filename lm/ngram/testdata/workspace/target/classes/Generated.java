// Build output: the trainer must skip target/.
class Generated { int zzzSkippedIdentifier = 1; int zzzSkippedIdentifier2 = zzzSkippedIdentifier; }
