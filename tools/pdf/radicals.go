package pdf

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// CJK fonts map one glyph to both a radical and the ideograph it looks
// like, and Chromium's ToUnicode maps name the radical (⽐ U+2F50, ⻢
// U+2EE2) where the text has the ideograph (比, 马). Kangxi radicals have
// compatibility decompositions (NFKC); the simplified radicals of the
// supplement do not, so these are their equivalent ideographs (Unicode's
// EquivalentUnifiedIdeograph.txt).
var radicalSupplement = map[rune]rune{
	0x2EB0: 0x7E9F, 0x2EC5: 0x89C1, 0x2EC6: 0x89D2, 0x2EC8: 0x8BA0, 0x2EC9: 0x8D1D,
	0x2ECB: 0x8F66, 0x2ED0: 0x9485, 0x2ED3: 0x957F, 0x2ED4: 0x95E8, 0x2ED9: 0x97E6,
	0x2EDA: 0x9875, 0x2EDB: 0x98CE, 0x2EDC: 0x98DE, 0x2EE0: 0x9963, 0x2EE2: 0x9A6C,
	0x2EE5: 0x9C7C, 0x2EE6: 0x9E1F, 0x2EE7: 0x5364, 0x2EE8: 0x9EA6, 0x2EE9: 0x9EC4,
	0x2EEA: 0x9EFE, 0x2EEB: 0x6589, 0x2EEC: 0x9F50, 0x2EED: 0x6B6F, 0x2EEE: 0x9F7F,
	0x2EEF: 0x7ADC, 0x2EF0: 0x9F99, 0x2EF2: 0x4E80,
}

// unradical replaces CJK radicals in s by their ideographs.
func unradical(s string) string {
	if !strings.ContainsFunc(s, isRadical) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case radicalSupplement[r] != 0:
			b.WriteRune(radicalSupplement[r])
		case isRadical(r):
			b.WriteString(norm.NFKC.String(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isRadical(r rune) bool { return r >= 0x2E80 && r <= 0x2FDF }
