package cli

// project.go: the default of --project for "repair" and "search".

import (
	"fmt"
	"os"
	"path/filepath"
)

// projectMarkers are the files or folders that mark a project's root for
// defaultProject: a Maven or Gradle build, or a git checkout.
var projectMarkers = []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".git"}

// projectFlagHelp is the --project help of "repair" and "search", the rule
// of defaultProject in words.
const projectFlagHelp = "project root directory (default: the nearest folder, from the current one up to below your home folder, holding pom.xml, build.gradle or .git; else the current folder)"

// defaultProject is --project when it is not given: the nearest folder,
// from the current one up, that holds one of projectMarkers; the current
// folder when none does. The search stops below the user's home folder (a
// home folder kept in git must not make a project of everything in it) and
// at the file system's root. The error is os.Getwd's.
func defaultProject() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	home, _ := os.UserHomeDir()
	return projectRootFrom(cwd, home), nil
}

// projectRootFrom is defaultProject's rule from dir (absolute): dir or its
// nearest parent below stop holding one of projectMarkers, else dir
// itself. stop ("" for none) is never chosen, unless it is dir.
func projectRootFrom(dir, stop string) string {
	stop = filepath.Clean(stop)
	for d := dir; ; {
		if d != dir && d == stop {
			return dir
		}
		for _, m := range projectMarkers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// projectChosen is the line "repair" and "search" print on stderr when
// --project was not given, so that the user sees which folder they work on.
func projectChosen(root string) string {
	return fmt.Sprintf("project: %s (--project not given: the nearest folder holding pom.xml, build.gradle or .git, else the current one)", root)
}
