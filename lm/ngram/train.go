// This file defines Train: reading the training sources (the workspace's
// .java files and the JDK's lib/src.zip), building the vocabulary, counting
// n-grams, and caching the JDK's counts on disk.

package ngram

import (
	"archive/zip"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javaenv"
	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// DefaultOrder is the n-gram order used when Options.Order is 0.
const DefaultOrder = 4

// DefaultJDKInclude is the part of src.zip trained on by default: the
// java.base module (about 3,100 files and 3.8M tokens in JDK 17; the whole
// src.zip has 17M tokens, much of it locale data and desktop code that the
// typical project never touches).
var DefaultJDKInclude = []string{"java.base/"}

// Sources says what to train on.
type Sources struct {
	// Roots are workspace directories walked for .java files. Build output
	// and tool directories (target, build, out, bin, node_modules, and
	// hidden directories such as .git) are skipped.
	Roots []string
	// JDKSrcZip is the JDK source archive; empty means FindJDKSrcZip's
	// answer. Used only when Options.UseJDK is set.
	JDKSrcZip string
}

// Options tune Train. The zero value trains an order-4 model on the
// workspace alone, without a disk cache.
type Options struct {
	// Order is the n-gram order, 2..5; 0 means DefaultOrder.
	Order int
	// UseJDK adds the JDK's src.zip (filtered by JDKInclude) to the training
	// data when one is found; when none is found the model trains on the
	// workspace alone and Model.Sources says so.
	UseJDK bool
	// JDKInclude are path prefixes of src.zip entries to train on (e.g.
	// "java.base/", "java.sql/java/sql/"); nil means DefaultJDKInclude.
	JDKInclude []string
	// CacheDir, if set, holds the JDK's counts between runs (e.g.
	// ~/.cache/repilot-lsp/ngram). The entry is keyed by the archive's
	// path, size and modification time, JDKInclude, Order and the format
	// version; a damaged entry is ignored and rewritten.
	CacheDir string
	// Progress, if set, receives training progress: a stage name ("jdk",
	// "workspace", "build") and done/total units (files; 0/1 then 1/1 for
	// "build"). It is called from the goroutine that called Train.
	Progress func(stage string, done, total int)
}

// SourceInfo describes one part of the training data.
type SourceInfo struct {
	Kind     string        // "jdk" or "workspace"
	Path     string        // src.zip path or workspace root
	Files    int           // .java files read
	Tokens   int           // stream tokens (NEWLINE included)
	Cached   bool          // counts came from the disk cache
	Duration time.Duration // time to read, lex and count (or load from cache)
	Note     string        // why a source was not used, when it was not
	// Chosen says, for the "jdk" source, which JDK the archive belongs to
	// and the rule that chose it ("JDK 17 at /usr/lib/jvm/... (the JDK in
	// use)").
	Chosen string
}

// FindJDKSrcZip returns the JDK source archive to train on, by
// javaenv.TrainingSrcZip's rule: the src.zip of the JDK in use (the one that
// runs JDT LS: $JAVA_HOME, else java on PATH), else the newest JDK's under
// /usr/lib/jvm; "" when no JDK has sources (Debian: openjdk-17-source).
func FindJDKSrcZip() string {
	z, _, _ := javaenv.TrainingSrcZip()
	return z.Path
}

// jdkChoice describes the archive FindJDKSrcZip chose, for
// SourceInfo.Chosen: "JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64 (the JDK
// in use)".
func jdkChoice(path string) string {
	z, why, ok := javaenv.TrainingSrcZip()
	if !ok || z.Path != path {
		return "given by the caller"
	}
	return fmt.Sprintf("JDK %d at %s (%s)", z.Release, z.Home, why)
}

// Train builds a model from src. It returns an error when ctx is cancelled,
// when a workspace root cannot be walked, or when there is no training data
// at all; an unreadable or missing src.zip is reported in Model.Sources, not
// as an error. Training is deterministic: equal data gives an equal model.
func Train(ctx context.Context, src Sources, opt Options) (*Model, error) {
	order := cmp.Or(opt.Order, DefaultOrder)
	if order < 2 || order > maxOrder {
		return nil, fmt.Errorf("ngram: order %d out of range 2..%d", order, maxOrder)
	}
	progress := opt.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	var sources []SourceInfo
	var jdk *counted
	if opt.UseJDK {
		zipPath := cmp.Or(src.JDKSrcZip, FindJDKSrcZip())
		include := opt.JDKInclude
		if include == nil {
			include = DefaultJDKInclude
		}
		info := SourceInfo{Kind: "jdk", Path: zipPath}
		if zipPath != "" {
			info.Chosen = jdkChoice(zipPath)
		}
		if zipPath == "" {
			info.Note = "no src.zip found ($JAVA_HOME/lib/src.zip, /usr/lib/jvm/*/lib/src.zip); install openjdk-17-source"
		} else {
			c, cached, err := jdkCounts(ctx, zipPath, include, order, opt.CacheDir, progress)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				info.Note = err.Error()
			} else {
				jdk = c
				info.Files, info.Tokens, info.Cached, info.Duration = c.files, c.tokens, cached, c.took
				info.Path = zipPath + " [" + strings.Join(include, ",") + "]"
			}
		}
		sources = append(sources, info)
	}
	var files []string
	for _, root := range src.Roots {
		found, err := javaFiles(ctx, root)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	t0 := time.Now()
	var corpus interner
	corpus.init()
	nread := 0
	err := lexFiles(ctx, len(files), func(i int) (string, error) {
		b, err := os.ReadFile(files[i])
		return string(b), err
	}, func(i int, toks []streamTok, err error) {
		if err == nil {
			corpus.addFile(toks)
			nread++
		}
		progress("workspace", i+1, len(files))
	})
	if err != nil {
		return nil, err
	}
	if len(src.Roots) > 0 {
		sources = append(sources, SourceInfo{Kind: "workspace", Path: strings.Join(src.Roots, string(os.PathListSeparator)),
			Files: nread, Tokens: corpus.tokens, Duration: time.Since(t0)})
	}
	if jdk == nil && corpus.tokens == 0 {
		return nil, errors.New("ngram: no training data (no .java files in the workspace and no JDK sources)")
	}

	progress("build", 0, 1)
	// Vocabulary: the JDK's (ids preserved, so its sorted counts stay
	// sorted) followed by workspace tokens it lacks that occur twice or
	// more, and every workspace identifier. Identifiers are kept even when
	// seen once: a method declared in one file and never called is exactly
	// the kind of name a fix elsewhere needs (percentOff() of a record), and
	// a class could only propose it from the current file. Rare literals
	// and other tokens still go to their class, which keeps the classes'
	// estimate of "some new token here" (the JDK's singletons feed it too).
	var vocab []string
	if jdk != nil {
		vocab = jdk.vocab
	} else {
		vocab = specialTexts[:]
	}
	vocab = slices.Clip(vocab)
	known := make(map[string]uint32, len(vocab))
	for i, s := range vocab {
		known[s] = uint32(i)
	}
	remap := make([]uint32, len(corpus.texts))
	var fresh []uint32 // provisional ids of new vocabulary words
	for p, s := range corpus.texts {
		if id, ok := known[s]; ok {
			remap[p] = id
		} else if corpus.counts[p] >= 2 || corpus.kinds[p] == javalex.Ident {
			fresh = append(fresh, uint32(p))
		} else {
			remap[p] = classOf(corpus.kinds[p])
		}
	}
	vocab = corpus.appendByCount(vocab, remap, fresh)
	var ws gramCounts
	wsIdents := newIdentStats()
	dot, dotOK := uint32(0), false
	if p, ok := corpus.ids["."]; ok && remap[p] >= numSpecial {
		dot, dotOK = remap[p], true
	}
	if corpus.tokens > 0 {
		keys := make([]key, 0, corpus.tokens)
		for _, f := range corpus.files {
			ids := make([]uint32, len(f))
			for i, p := range f {
				ids[i] = remap[p]
			}
			keys = appendGrams(keys, ids, order)
			toks := make([]streamTok, len(f))
			for i, p := range f {
				toks[i] = streamTok{Text: corpus.texts[p], Kind: corpus.kinds[p]}
			}
			header := headerLines(toks)
			for i, p := range f {
				if corpus.kinds[p] != javalex.Ident || header[i] {
					continue
				}
				prev := noRaw
				if i > 0 {
					prev = ids[i-1]
					if dotOK && declaresAfter(corpus.texts[f[i-1]], corpus.kinds[f[i-1]]) {
						wsIdents.add(dot, ids[i]) // a declared name: a member name too
					}
				}
				wsIdents.add(prev, ids[i])
			}
		}
		ws = countSorted(keys, order, len(vocab))
	}
	top := ws
	if jdk != nil {
		top = mergeCounts(jdk.grams, ws)
	}
	m := newModel(order, vocab, top, sources)
	m.ws = wsIdents.finish(m.uni)
	types := corpus.countTypes()
	if jdk != nil {
		types.merge(jdk.types)
	}
	m.typed = newTypedStats(types, m.ids)
	progress("build", 1, 1)
	return m, ctx.Err()
}

// skipDirs are directory names never walked for training sources.
var skipDirs = map[string]bool{"target": true, "build": true, "out": true, "bin": true, "node_modules": true}

// maxFileSize bounds the .java files read (larger ones are usually generated).
const maxFileSize = 1 << 20

// javaFiles lists the .java files under root in lexical order.
func javaFiles(ctx context.Context, root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // unreadable subtree: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".java") && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && info.Size() <= maxFileSize {
				out = append(out, path)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ngram: walking %s: %w", root, err)
	}
	return out, nil
}

// lexFiles reads and lexes n files in parallel (read(i) gives file i's text)
// and hands each result to done in file order, on the calling goroutine.
func lexFiles(ctx context.Context, n int, read func(i int) (string, error), done func(i int, toks []streamTok, err error)) error {
	const batch = 64
	workers := max(1, runtime.GOMAXPROCS(0))
	type result struct {
		toks []streamTok
		err  error
	}
	results := make([]result, batch)
	for start := 0; start < n; start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+batch, n)
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Go(func() {
				for i := range next {
					text, err := read(i)
					if err != nil {
						results[i-start] = result{err: err}
						continue
					}
					results[i-start] = result{toks: lexStream(text)}
				}
			})
		}
		for i := start; i < end; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		for i := start; i < end; i++ {
			r := results[i-start]
			done(i, r.toks, r.err)
			results[i-start] = result{}
		}
	}
	return nil
}

// interner collects files as sequences of provisional token ids.
type interner struct {
	ids    map[string]uint32
	texts  []string
	kinds  []javalex.Kind
	counts []uint32
	files  [][]uint32
	tokens int
}

func (c *interner) init() { c.ids = make(map[string]uint32) }

func (c *interner) addFile(toks []streamTok) {
	f := make([]uint32, len(toks))
	for i, t := range toks {
		p, ok := c.ids[t.Text]
		if !ok {
			p = uint32(len(c.texts))
			s := strings.Clone(t.Text) // do not keep the file's text alive
			c.ids[s] = p
			c.texts = append(c.texts, s)
			c.kinds = append(c.kinds, t.Kind)
			c.counts = append(c.counts, 0)
		}
		c.counts[p]++
		f[i] = p
	}
	c.files = append(c.files, f)
	c.tokens += len(toks)
}

// appendByCount gives the provisional ids ps the next vocabulary ids, most
// frequent first, then by text, so vocabulary ids do not depend on file
// order: it appends their texts to vocab, which it returns, and records
// each one's id in remap (indexed by provisional id). ps is reordered.
func (c *interner) appendByCount(vocab []string, remap []uint32, ps []uint32) []string {
	slices.SortFunc(ps, func(a, b uint32) int {
		if d := cmp.Compare(c.counts[b], c.counts[a]); d != 0 {
			return d
		}
		return strings.Compare(c.texts[a], c.texts[b])
	})
	for _, p := range ps {
		remap[p] = uint32(len(vocab))
		vocab = append(vocab, c.texts[p])
	}
	return vocab
}

// counted is the JDK part of the training data: its vocabulary (specials
// first, then tokens seen twice or more, most frequent first) and its
// top-order n-gram counts over that vocabulary.
type counted struct {
	vocab  []string
	grams  gramCounts
	types  typeMemberCounts // member accesses by receiver type (typed.go)
	files  int
	tokens int
	took   time.Duration
}

// countTypes counts the member accesses by declared receiver type of the
// interned files (typed.go).
func (c *interner) countTypes() typeMemberCounts {
	tc := typeMemberCounts{}
	var texts []string
	var kinds []javalex.Kind
	for _, f := range c.files {
		texts, kinds = texts[:0], kinds[:0]
		for _, p := range f {
			texts = append(texts, c.texts[p])
			kinds = append(kinds, c.kinds[p])
		}
		tc.add(texts, kinds)
	}
	return tc
}

// countZip lexes and counts the .java entries of zipPath under the include
// prefixes.
func countZip(ctx context.Context, zipPath string, include []string, order int, progress func(string, int, int)) (*counted, error) {
	t0 := time.Now()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, fmt.Errorf("ngram: %w", err)
	}
	defer zr.Close()
	var entries []*zip.File
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".java") || f.UncompressedSize64 > maxFileSize {
			continue
		}
		for _, p := range include {
			if strings.HasPrefix(f.Name, p) {
				entries = append(entries, f)
				break
			}
		}
	}
	slices.SortFunc(entries, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	if len(entries) == 0 {
		return nil, fmt.Errorf("ngram: no .java entries under %v in %s", include, zipPath)
	}
	var corpus interner
	corpus.init()
	err = lexFiles(ctx, len(entries), func(i int) (string, error) {
		rc, err := entries[i].Open()
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}, func(i int, toks []streamTok, err error) {
		if err == nil {
			corpus.addFile(toks)
		}
		progress("jdk", i+1, len(entries))
	})
	if err != nil {
		return nil, err
	}
	types := corpus.countTypes()
	vocab := slices.Clone(specialTexts[:])
	remap := make([]uint32, len(corpus.texts))
	var keep []uint32
	for p, text := range corpus.texts {
		if text == newlineText {
			remap[p] = idNewline
		} else if corpus.counts[p] >= 2 {
			keep = append(keep, uint32(p))
		} else {
			remap[p] = classOf(corpus.kinds[p])
		}
	}
	vocab = corpus.appendByCount(vocab, remap, keep)
	keys := make([]key, 0, corpus.tokens)
	for _, f := range corpus.files {
		for i, p := range f {
			f[i] = remap[p]
		}
		keys = appendGrams(keys, f, order)
	}
	c := &counted{vocab: vocab, grams: countSorted(keys, order, len(vocab)), types: types, files: len(corpus.files), tokens: corpus.tokens}
	c.took = time.Since(t0)
	return c, nil
}

// primitiveTypes are the keywords that end a type (JLS 4.2, and void).
var primitiveTypes = map[string]bool{"int": true, "long": true, "short": true, "byte": true, "char": true,
	"boolean": true, "float": true, "double": true, "void": true}

// declaresAfter reports whether an identifier after the token text (of
// kind k) is being declared: the token ends a type (a type name, ">" of type
// arguments, "]" of an array type, a primitive type or void), as in
// "int percentOff", "List<Item> items", "String[] parts", "void run(".
// Fields, methods and record components are the names a project's types
// offer after '.', so the workspace component counts them as member names
// (locals and parameters come along: a lexical test cannot tell them apart,
// and the completion engine prunes what is not a member).
func declaresAfter(text string, k javalex.Kind) bool {
	return k == javalex.Ident || text == ">" || text == "]" || primitiveTypes[text]
}
