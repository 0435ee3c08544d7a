package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultProject: without --project, repair and search use the nearest
// folder from the current one up that holds pom.xml, build.gradle or .git,
// else the current folder.
func TestDefaultProject(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(base, "app")
	deep := filepath.Join(app, "src", "main", "java", "org")
	bare := filepath.Join(base, "bare", "sub")
	for _, d := range []string{deep, bare} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(app, "pom.xml"), []byte("<project/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{deep: app, app: app, bare: bare} {
		if got := projectRootFrom(dir, ""); got != want {
			t.Errorf("projectRootFrom(%s) = %s, want %s", dir, got, want)
		}
	}
	// A home folder kept in git is no project: the search stops below it.
	if err := os.Mkdir(filepath.Join(base, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := projectRootFrom(bare, base); got != bare {
		t.Errorf("projectRootFrom(%s) under a home with .git = %s, want %s", bare, got, bare)
	}
	if got := projectRootFrom(bare, ""); got != base {
		t.Errorf("projectRootFrom(%s) = %s, want %s (the .git above)", bare, got, base)
	}
	if got := projectRootFrom(base, base); got != base {
		t.Errorf("projectRootFrom(home, home) = %s, want home", got)
	}

	// repair: --file relative to the project found from the current folder.
	if err := os.WriteFile(filepath.Join(deep, "A.java"), []byte("class A {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep)
	tg, err := resolveTarget("", "src/main/java/org/A.java", "1")
	if err != nil || tg.root != app {
		t.Errorf("resolveTarget without --project: root %q, err %v; want %s", tg.root, err, app)
	}
	// search: the same rule.
	f := defaultSearchFlags("")
	if _, err := f.Config(); err != nil || f.Project != app {
		t.Errorf("search without --project: project %q, err %v; want %s", f.Project, err, app)
	}
}

// TestProjectHelpSaysTheDefault: --help of repair and search gives
// defaultProject's rule, and neither calls --project required.
func TestProjectHelpSaysTheDefault(t *testing.T) {
	for _, name := range []string{"repair", "search"} {
		cmd, _, err := Root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup("project")
		if f == nil || f.Usage != projectFlagHelp || strings.Contains(cmd.Use, "--project DIR ") && !strings.Contains(cmd.Use, "[--project DIR]") {
			t.Errorf("%s: Use %q, --project %+v", name, cmd.Use, f)
		}
	}
}

// TestSearchSaysWhichProjectItChose: without --project, search names the
// folder it chose on stderr (a user in a subfolder otherwise cannot tell
// what was indexed); with --project, or --quiet, it prints no such line.
func TestSearchSaysWhichProjectItChose(t *testing.T) {
	root := searchProject(t)
	if err := os.WriteFile(filepath.Join(root, "pom.xml"), []byte("<project/>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		project       string
		quiet, wanted bool
	}{
		{"defaulted", "", false, true},
		{"given", root, false, false},
		{"defaulted, quiet", "", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(root)
			f := searchCmdFlags{SearchFlags: testSearchFlags(root), k: 3, quiet: c.quiet}
			f.Project = c.project
			var out, errOut bytes.Buffer
			if err := runSearch(context.Background(), f, "parse a date from a string", &out, &errOut); err != nil {
				t.Fatalf("search failed: %v (stderr %q)", err, errOut.String())
			}
			said := strings.Contains(errOut.String(), "project: "+root+" (--project not given")
			if said != c.wanted {
				t.Errorf("stderr names the chosen project: %v, want %v:\n%s", said, c.wanted, errOut.String())
			}
		})
	}
}

// TestRepairSaysWhichProjectItChose: repair, like search, names the folder
// it chose when --project is not given, before anything can fail after
// the target is read (here an unknown --variant), and not under --quiet.
func TestRepairSaysWhichProjectItChose(t *testing.T) {
	root, err := filepath.EvalSymlinks(writeProject(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pom.xml"), []byte("<project/>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "src"))
	for _, quiet := range []bool{false, true} {
		f := repairFlags{file: "A.java", lines: "3", variant: "fancy", keep: 1, quiet: quiet,
			sampling: samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1}}
		var out, errb bytes.Buffer
		err := runRepair(context.Background(), f, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "--variant") {
			t.Fatalf("quiet %v: err = %v; want the unknown --variant refused", quiet, err)
		}
		said := strings.Contains(errb.String(), "project: "+root+" (--project not given")
		if said == quiet {
			t.Errorf("quiet %v: stderr names the chosen project: %v:\n%s", quiet, said, errb.String())
		}
	}
}
