# Makefile: shortcuts for the scripts in scripts/ (the scripts are the source of truth).
.PHONY: build install demo test check-corpus check-editors vsix

build:
	go build -o bin/repilot-lsp ./cmd/repilot-lsp

install:
	scripts/install.sh

demo:
	scripts/demo.sh

test:
	scripts/test.sh

check-corpus:
	scripts/check-corpus.sh

check-editors:
	scripts/check-editors.sh

vsix:
	cd editors/vscode && npm install --no-audit --no-fund && npx --yes @vscode/vsce@3 package --skip-license
