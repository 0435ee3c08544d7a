package cli

// project.go: the default of --project for "repair" and "search".

import (
	"os"
	"path/filepath"
)

// projectMarkers are the files or folders that mark a project's root for
// defaultProject: a Maven or Gradle build, or a git checkout.
var projectMarkers = []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".git"}

// projectFlagHelp is the --project help of "repair" and "search", the rule
// of defaultProject in words.
const projectFlagHelp = "project root directory (default: the nearest folder, from the current one up, holding pom.xml, build.gradle or .git; else the current folder)"

// defaultProject is --project when it is not given: the nearest folder,
// from the current one up to the file system's root, that holds one of
// projectMarkers; the current folder when none does. The error is
// os.Getwd's.
func defaultProject() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return projectRootFrom(cwd), nil
}

// projectRootFrom is defaultProject's rule from dir (absolute): dir or its
// nearest parent holding one of projectMarkers, else dir itself.
func projectRootFrom(dir string) string {
	for d := dir; ; {
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
