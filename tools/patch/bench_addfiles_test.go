package patch

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkApplyAddFiles: one patch that adds n new files to one
// directory, through the whole tool (resolve, lock, stage with fsync,
// rename). Each staged temp file used to rescan the directory and lstat
// every temp staged before it, so the cost grew with n²; it should grow
// with n (compare ns/op across the sizes).
func BenchmarkApplyAddFiles(b *testing.B) {
	for _, n := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			env, _ := testEnv(b, "")
			i := 0
			for b.Loop() {
				b.StopTimer()
				patch := addFilesPatch(fmt.Sprintf("run%d", i), n)
				i++
				b.StartTimer()
				if _, err := Apply(context.Background(), env, patch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
