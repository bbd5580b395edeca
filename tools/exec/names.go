package exectool

import (
	"math/rand/v2"
	"strconv"
)

var (
	adjectives = []string{"amber", "brave", "calm", "crisp", "eager", "fast", "gentle", "keen", "lucky", "mellow",
		"neat", "quiet", "rapid", "sharp", "swift", "tidy", "vivid", "warm", "wild", "young"}
	nouns = []string{"bay", "cloud", "cove", "dune", "ember", "fern", "glade", "harbor", "lake", "meadow",
		"orbit", "pine", "reef", "river", "shell", "stone", "tide", "trail", "wave", "willow"}
)

// names issues session ids such as "neat-cloud" that never repeat while the
// gateway lives: a random draw repeated names of sessions already dropped
// (tasks list showed two tasks of main:sharp-glade). The n-th name is the
// n-th word pair of an order shuffled once per registry; after all 400
// pairs a round suffix follows ("neat-cloud-2"), so uniqueness needs a
// counter, not a set of every name given out.
type names struct {
	order []int // a permutation of the word pairs
	n     int   // names issued
}

func (ns *names) next() string {
	pairs := len(adjectives) * len(nouns)
	if ns.order == nil {
		ns.order = rand.Perm(pairs)
	}
	i, round := ns.order[ns.n%pairs], ns.n/pairs
	ns.n++
	s := adjectives[i/len(nouns)] + "-" + nouns[i%len(nouns)]
	if round > 0 {
		s += "-" + strconv.Itoa(round+1)
	}
	return s
}

// freshName is the next name no session holds (a session recovered from a
// previous gateway keeps its old id, which the sequence may reach). r.mu
// is held.
func (r *registry) freshName() string {
	for {
		if id := r.names.next(); r.sessions[id] == nil {
			return id
		}
	}
}
