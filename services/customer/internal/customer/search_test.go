package customer

import (
	"sync"
	"testing"
)

// Search texts are folded by concurrent requests; each must get its own
// answer (a shared transformer mixes their buffers up).
func TestFoldIsSafeConcurrently(t *testing.T) {
	cases := map[string]string{
		"Adé-Bísí":            "ade-bisi",
		"NGOZI Okafor":        "ngozi okafor",
		"Chiamaka Ọ̀kọ́nkwọ́": "chiamaka okonkwo",
		"Émeka Nwosu":         "emeka nwosu",
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				for in, want := range cases {
					if got := Fold(in); got != want {
						t.Errorf("Fold(%q) = %q, want %q", in, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
