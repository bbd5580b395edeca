package schemacheck

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func randomNumberText(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteByte('-')
	}
	if r.IntN(4) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteString(strconv.Itoa(1 + r.IntN(999)))
		for i := r.IntN(3); i > 0; i-- {
			b.WriteByte('0')
		}
	}
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		for i := 1 + r.IntN(4); i > 0; i-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(2) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-"}[r.IntN(4)])
		b.WriteString(strconv.Itoa(r.IntN(30)))
	}
	return b.String()
}

// The digit-based comparison agrees with exact rational arithmetic.
func TestDecimalAgainstRat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20000; i++ {
		a, b := randomNumberText(r), randomNumberText(r)
		if r.IntN(10) == 0 {
			b = a
		}
		da, ok1 := parseDecimal(a)
		db, ok2 := parseDecimal(b)
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if !ok1 || !ok2 {
			t.Fatalf("parse %q %q", a, b)
		}
		if got, want := da.cmp(db), ra.Cmp(rb); got != want {
			t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		if da.isInteger() != ra.IsInt() {
			t.Fatalf("isInteger(%s) = %v", a, da.isInteger())
		}
		if (da.key() == db.key()) != (ra.Cmp(rb) == 0) {
			t.Fatalf("key(%s)=%s key(%s)=%s", a, da.key(), b, db.key())
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "01x", "+1", "1e+", "--1", "NaN"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) accepted", bad)
		}
	}
}

// Huge exponents cost nothing: no big number is ever built for them.
func TestHugeExponentsAreCheap(t *testing.T) {
	s := MustCompile(`{"type":"array","uniqueItems":true,"items":{"type":"integer","minimum":0,"maximum":10,"multipleOf":3,"enum":[1,2,3]}}`)
	arr := make([]any, 2000)
	for i := range arr {
		arr[i] = json.Number("1e99999" + strconv.Itoa(i%10))
	}
	start := time.Now()
	errs := s.Validate(arr)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	// The duplicate pair (0, 10), then each item fails its enum.
	if len(errs) != 2001 || errs[0].Kind != KindUniqueItems || errs[0].Duplicates != [2]int{0, 10} {
		t.Errorf("%d errors, first %v", len(errs), errs[0])
	}
	if s.Valid([]any{json.Number("3e0"), json.Number("30e-1")}) || !s.Valid([]any{json.Number("3e0")}) {
		t.Error("3e0 and 30e-1 are equal; 3e0 is valid")
	}
	m := MustCompile(`{"multipleOf":0.3}`)
	if !m.Valid(json.Number("3e20000")) || m.Valid(json.Number("1e20000")) || m.Valid(json.Number("1e-20000")) || !m.Valid(json.Number("0.9")) {
		t.Error("multipleOf on huge exponents")
	}
}
