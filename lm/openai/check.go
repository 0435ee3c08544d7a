package openai

// check.go defines Model.Check: one cheap round trip that tells a user at
// start-up, before any JDT LS is started, whether the configured server is
// reachable and returns the next-token log-probabilities Repilot needs.

import (
	"context"
	"fmt"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

// checkFIM is the context Check completes: a tiny Java class.
var checkFIM = lm.FIM{Prefix: "class Check {\n    int f() {\n        return ", Suffix: ";\n    }\n}\n", Indent: "        "}

// Check contacts the server: model detection (GET /v1/models, when the
// configuration leaves the model or dialect open) and one completion of one
// token with logprobs through the same path a repair uses (template or
// /infill). It returns nil when the server answered with at least one
// candidate token; otherwise an *Error (server down: Unreachable; HTTP
// status; no logprobs: errors.Is(err, ErrNoLogprobs)) or a plain error when
// the server returned an empty distribution. Error texts never contain the
// API key. Check costs one or two requests (counted by Client.Requests).
func (m *Model) Check(ctx context.Context) error {
	s, err := m.Start(ctx, checkFIM)
	if err != nil {
		return err
	}
	cands, err := s.Next(ctx, "", 5)
	if err != nil {
		return err
	}
	if len(cands) == 0 {
		return fmt.Errorf("lm/openai: %s returned no candidate token for a test completion (are logprobs enabled?)", m.Name())
	}
	return nil
}
