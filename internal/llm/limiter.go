package llm

import (
	"errors"
	"sync"
)

// StreamsPerAccount is how many assistant streams one account may hold open
// at once (RULINGS "The assistant").
const StreamsPerAccount = 2

// ErrTooManyStreams is an account already holding its streams; the caller
// answers 429.
var ErrTooManyStreams = errors.New("llm: this account already has the most streams open at once")

// Limiter counts the streams each account holds open. The zero value is not
// usable; NewLimiter makes one.
type Limiter struct {
	limit int
	mu    sync.Mutex
	open  map[string]int
}

// NewLimiter lets each account hold limit streams at once.
func NewLimiter(limit int) *Limiter {
	return &Limiter{limit: limit, open: map[string]int{}}
}

// Acquire takes one of the account's streams, or answers ErrTooManyStreams.
// release gives it back; calling it more than once gives back one.
func (l *Limiter) Acquire(account string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[account] >= l.limit {
		return nil, ErrTooManyStreams
	}
	l.open[account]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[account]--; l.open[account] <= 0 {
				delete(l.open, account)
			}
		})
	}, nil
}
