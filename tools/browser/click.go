package browser

import (
	"context"
	"strings"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// modifierNames are the click modifiers the original accepts, in its
// error message's order.
const modifierNames = "Alt|Control|ControlOrMeta|Meta|Shift"

// clickModifiers maps the modifier names to keys. Each item may itself be
// a comma- or plus-separated list (the CLI's `--modifiers Shift,Alt`
// arrives as one string). ControlOrMeta is Control: the browser runs on
// Linux here, where Playwright maps it to Control too.
func clickModifiers(names []string) ([]input.Key, error) {
	var keys []input.Key
	seen := map[input.Key]bool{}
	for _, item := range names {
		for _, n := range strings.FieldsFunc(item, func(r rune) bool { return r == ',' || r == '+' }) {
			var k input.Key
			switch strings.ToLower(strings.TrimSpace(n)) {
			case "alt":
				k = input.AltLeft
			case "control", "controlormeta":
				k = input.ControlLeft
			case "meta":
				k = input.MetaLeft
			case "shift":
				k = input.ShiftLeft
			default:
				return nil, tools.Errorf(tools.CodeInvalidParams, "modifiers must be %s (got %q)", modifierNames, strings.TrimSpace(n))
			}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys, nil
}

// clickWith clicks el (already actionable) with the act's button, click
// count and modifier keys. The modifiers are held down on the element's
// own page (a frame's keyboard is its page's) for the click and always
// released after, so the next act starts with no key held. A double click
// is two clicks, the second with clickCount 2, as a user's (and
// Playwright's): the page sees click, click, dblclick.
func clickWith(ctx context.Context, t *actTarget, a *readyAnswer, r actReq, out map[string]any) error {
	btn := proto.InputMouseButtonLeft
	switch r.Button {
	case "", "left":
	case "right":
		btn = proto.InputMouseButtonRight
	case "middle":
		btn = proto.InputMouseButtonMiddle
	default:
		return tools.Errorf(tools.CodeInvalidParams, "button must be left, right, or middle (got %q)", r.Button)
	}
	mods, err := clickModifiers(r.Modifiers)
	if err != nil {
		return err
	}
	// A download link starts its download in the browser process, after
	// the click returns: the caller waits for it (expectDownload).
	if a.Download {
		out[expectDownloadKey] = true
	}
	pt, err := t.point(ctx, a)
	if err != nil {
		return actFailed(r, err)
	}
	// The keyboard belongs to the page object the session attached, whose
	// context is the call's connection, not the act's: the release runs
	// even when the act was given up (a dialog it opened).
	kb := t.pg.Keyboard
	defer func() {
		for _, k := range mods {
			_ = kb.Release(k) // best effort: a closed tab has nothing held
		}
	}()
	for _, k := range mods {
		if err := kb.Press(k); err != nil {
			return actFailed(r, err)
		}
	}
	mouse := t.pg.Context(ctx).Mouse
	if err := mouse.MoveTo(pt); err != nil {
		return actFailed(r, err)
	}
	if err := mouse.Click(btn, 1); err != nil {
		return actFailed(r, err)
	}
	if r.DoubleClick || r.Double {
		if err := mouse.Click(btn, 2); err != nil {
			return actFailed(r, err)
		}
	}
	return nil
}
