package tokenize

// synonyms.go maps the words people use when they ask for code to the
// words identifiers use for the same operation ("change" -> set, update;
// "call" -> invoke; "cut" -> truncate, trim): the vocabulary mismatch
// between a question and the code it asks for, which query expansion with
// a thesaurus addresses in code search (Lu et al., "Query Expansion via
// WordNet for Effective Code Search", SANER 2015; Lawrie and Binkley,
// "Expanding Identifiers to Normalize Source Code Vocabulary", ICSM 2011).
// The table is written by hand from general programming usage (API verbs
// and their plain-English counterparts), like the abbreviation table; it
// names no identifier of any evaluation corpus.

import (
	"slices"
	"strings"
)

// synonymTable: "question words: code words". Each question word maps to
// every code word of its line; the lookup is by the question word's stem,
// so inflections ("changes", "changed", "changing") map too.
const synonymTable = `change modify alter edit: set update replace
update: set modify
create construct instantiate: new make build
make: new create build
build: create make new
generate produce: create make build
remove delete erase discard drop: remove delete clear
find search locate lookup: find search lookup index get
retrieve fetch obtain: get fetch read
check verify validate tell determine decide whether: is has check valid
convert transform turn translate: to convert as parse
write output save serialize emit dump: write dump print save serialize emit put
read load parse deserialize: read load parse deserialize
print display show render: print format write dump
cut shorten truncate trim strip chop: truncate trim strip cut
join combine concatenate merge: join concat merge append combine
split separate tokenize divide: split tokenize separate
copy clone duplicate: copy clone
compare equal same identical: compare equals same
differ difference differences: diff compare
count total: count size length
start begin launch spawn: start begin run spawn
stop halt finish terminate shutdown: stop close shutdown end cancel terminate
cancel abort interrupt: cancel abort interrupt stop
call invoke execute run apply perform: invoke call execute run apply
register attach install subscribe: add register put
store cache: put cache store save
exclude omit skip ignore except: exclude skip ignore
include contain: contains include has
sort order arrange: sort order compare
allow permit enable: enable allow accept
disable prevent forbid reject refuse deny: disable reject deny
initialize initialise setup prepare: init initialize setup
reset restore revert: reset restore clear
close release free dispose cleanup: close release free dispose
throw raise: throw raise
catch handle recover: handle catch
notify listen observe watch: notify listen fire observe
escape quote encode: escape quote encode
decode unescape unquote: decode unescape unquote
lazily lazy deferred: lazy
biggest largest greatest maximum: max
smallest least minimum: min
empty blank: empty blank
size length: size length count
replace substitute swap: replace set
insert put: insert add put
exist exists present available: exists has contains
fail failure: fail error exception
retry repeat: retry repeat
ensure assert require: check require assert validate ensure`

var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(synonymTable, "\n") {
		keys, vals, _ := strings.Cut(line, ":")
		for _, k := range strings.Fields(keys) {
			k = synonymKey(k)
			for _, v := range strings.Fields(vals) {
				if synonymKey(v) != k && !slices.Contains(m[k], v) {
					m[k] = append(m[k], v)
				}
			}
		}
	}
	return m
}()

// synonymKey is the table's key of a lower-case word: its stem (so
// inflections meet), as Analyzer.Part stems.
func synonymKey(w string) string {
	if len(w) > 3 && isASCIILetters(w) {
		return stem(w)
	}
	return w
}

// Synonyms returns the words identifiers commonly use for a question word
// ("change" -> set, update, replace), or nil; w is lower-case. The word's
// own stem is never among them.
func Synonyms(w string) []string { return synonyms[synonymKey(w)] }
