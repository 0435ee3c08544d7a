package tokenize

// abbrev.go expands abbreviations common in identifiers into the words a
// query uses ("dir" -> directory, "buf" -> buffer), a standard step of
// identifier normalisation in code search (Lawrie, Binkley and Morrell,
// "Normalizing Source Code Vocabulary", WCRE 2010). The table is written by
// hand from general programming usage, not from any evaluation corpus.

import "strings"

var abbrevs = func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(`addr address
arg argument
args arguments
argv arguments
async asynchronous
attr attribute
attrs attributes
auth authentication
buf buffer
calc calculate
cb callback
cfg configuration
char character
chr character
cls class
cmd command
cmp compare
cnt count
col column
conf configuration
config configuration
conn connection
ctx context
cur current
cwd current working directory
db database
dec decimal
decl declaration
def default
del delete
dest destination
dict dictionary
diff difference
dir directory
dirs directories
dst destination
elem element
env environment
eq equal
err error
esc escape
exc exception
exe executable
exec execute
expr expression
ext extension
fd file descriptor
fmt format
fn function
func function
gen generator
hdr header
idx index
impl implementation
init initialize
int integer
iter iterator
kw keyword
kwargs keyword arguments
lang language
len length
lib library
ln line
lst list
max maximum
mem memory
min minimum
mod module
msg message
num number
obj object
op operation
opt option
opts options
param parameter
params parameters
pkg package
pos position
prev previous
proc process
ptr pointer
pwd working directory
qual qualified
recv receive
ref reference
regex regular expression
rem remainder
req request
res result
resp response
ret return
sep separator
seq sequence
sig signature
sock socket
spec specification
src source
srv server
stmt statement
str string
sub subtract
sync synchronize
sys system
tmp temporary
tok token
tz timezone
usr user
util utility
val value
var variable
vars variables
ver version
win window
ws whitespace`, "\n") {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	return m
}()

// Expansion returns the words an abbreviation stands for (nil if p is not a
// known abbreviation); p is lower-case.
func Expansion(p string) []string { return abbrevs[p] }
