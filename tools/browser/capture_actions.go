package browser

import (
	"context"

	"github.com/openclaw-go/openclaw/tools"
)

// The actions that read the recorder's capture (console, requests,
// response-body) or go through it (dialog), and upload.

const propSinceLast = `"sinceLast":{"type":"boolean","description":"Only what is new since the previous --since-last read of this tab"}`

func init() {
	reg(&tools.Action{Verb: "console", Summary: "Console messages and uncaught errors of the tab (kept since the browser started)",
		Examples: []string{"openclaw browser console --level error", "openclaw browser console --since-last"},
		Schema: schemaHead +
			"," + `"level":{"type":"string","enum":["error","warn","info","log","debug"],"description":"At or above this level"}` +
			"," + propSinceLast +
			"," + `"limit":{"type":"integer","minimum":1,"description":"At most the newest N"}` +
			"," + `"clear":{"type":"boolean","description":"Forget the tab's messages after reading"}` +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			return recorderList(ctx, s, p, "console")
		})})
	reg(&tools.Action{Verb: "requests", Summary: "Numbered network requests of the tab: method, URL, status, timing",
		Examples: []string{"openclaw browser requests --since-last", "openclaw browser requests --filter /api/"},
		Schema: schemaHead +
			"," + `"filter":{"type":"string","description":"Keep URLs containing this"}` +
			"," + propSinceLast +
			"," + `"limit":{"type":"integer","minimum":1,"description":"At most the newest N (default 50; all new ones with --since-last)"}` +
			"," + `"clear":{"type":"boolean","description":"Forget the tab's requests after reading"}` +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			return recorderList(ctx, s, p, "requests")
		})})
	reg(&tools.Action{Verb: "downloads", Summary: "Downloads since the browser started, each stored as media (path) when finished",
		Schema: schemaHead +
			"," + propSinceLast +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			rec, err := s.needRecorder(ctx, "downloads")
			if err != nil {
				return nil, err
			}
			var out map[string]any
			if err := rec.call(ctx, recRequest{Op: "downloads", SinceLast: p.SinceLast}, &out); err != nil {
				return nil, tools.AsError(err)
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "response-body", Summary: "The response body of request ID (from `openclaw browser requests`)", Args: []string{"id"},
		Examples: []string{"openclaw browser response-body 12"},
		Schema: schemaHead +
			"," + `"id":{"type":"integer","minimum":1,"description":"Request number"}` +
			"," + `"maxChars":{"type":"integer","minimum":1,"description":"Cut the body after this many characters (default 200000)"}` +
			`},"required":["id"]}`,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			rec, err := s.needRecorder(ctx, "response-body")
			if err != nil {
				return nil, err
			}
			req := recRequest{Op: "body", ID: p.ID}
			if p.MaxChars != nil {
				req.MaxChars = *p.MaxChars
			}
			var out map[string]any
			if err := rec.call(ctx, req, &out); err != nil {
				return nil, tools.AsError(err)
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "dialog", Summary: "Answer the tab's open dialog, or arm the answer for its next one",
		Description: "With a dialog open (an act reported blockedByDialog) it is answered now; otherwise the answer is " +
			"armed for the tab's next alert, confirm or prompt, which is then answered as it opens.",
		Examples: []string{"openclaw browser dialog --accept", "openclaw browser dialog --accept --prompt-text alice", "openclaw browser dialog --dismiss"},
		Schema: schemaHead +
			"," + `"accept":{"type":"boolean","description":"Accept (OK)"}` +
			"," + `"dismiss":{"type":"boolean","description":"Dismiss (Cancel)"}` +
			"," + `"promptText":{"type":"string","description":"Text for a prompt()"}` +
			"," + `"prompt":{"type":"string","description":"Alias of promptText"}` +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			if p.Accept == p.Dismiss {
				return nil, tools.Errorf(tools.CodeInvalidParams, "dialog needs exactly one of accept or dismiss")
			}
			id, err := s.target(p.TargetID) // not attached: a tab under a dialog would block
			if err != nil {
				return nil, err
			}
			rec, err := s.needRecorder(ctx, "dialog")
			if err != nil {
				return nil, err
			}
			var out map[string]any
			if err := rec.call(ctx, recRequest{Op: "dialog", TargetID: string(id), Accept: p.Accept,
				PromptText: firstNonEmpty(p.PromptText, p.Prompt)}, &out); err != nil {
				return nil, tools.AsError(err)
			}
			out["targetId"] = string(id)
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "upload", Summary: "Give a file input files from the uploads root (/tmp/openclaw/uploads)", Args: []string{"paths..."},
		Description: "--ref clicks what opens the file chooser and answers it (or sets a file input directly); --input-ref " +
			"or --element set a file input. With none of them the files are armed for the tab's next file chooser " +
			"(for --timeout-ms, default 2 minutes): click what opens it next, and that act's result lists the upload. " +
			"Paths must lie under /tmp/openclaw/uploads or $TMPDIR/openclaw/uploads; symlinks and hard links are refused.",
		Examples: []string{"openclaw browser upload /tmp/openclaw/uploads/cv.pdf --ref e14",
			"openclaw browser upload /tmp/openclaw/uploads/cv.pdf && openclaw browser click e14"},
		Schema: schemaHead +
			"," + `"paths":{"type":"array","items":{"type":"string"},"minItems":1,"description":"Files to upload"}` +
			"," + propRef +
			"," + `"inputRef":{"type":"string","description":"Ref of an <input type=file> to set directly"}` +
			"," + `"element":{"type":"string","description":"CSS selector of an <input type=file>"}` +
			"," + propTimeout +
			`},"required":["paths"]}`,
		Run: withSession(upload)})
}

// recorderList reads the console or request capture of the tab.
func recorderList(ctx context.Context, s *session, p params, op string) (any, error) {
	pg, err := s.page(p.TargetID)
	if err != nil {
		return nil, err
	}
	rec, err := s.needRecorder(ctx, op)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := rec.call(ctx, recRequest{Op: op, TargetID: string(pg.TargetID), Level: p.Level, SinceLast: p.SinceLast,
		Limit: p.Limit, Filter: p.Filter, Clear: p.Clear}, &out); err != nil {
		return nil, tools.AsError(err)
	}
	if info, err := pg.Info(); err == nil {
		out["url"] = info.URL
	}
	return tools.JSONResult(out)
}
