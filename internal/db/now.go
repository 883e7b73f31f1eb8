package db

import "time"

// Now reads the clock that stamps this unit of work's rows (DB.SetClock), for
// code handed only the transaction that must still record business time (a
// package function called inside another package's unit of work, e.g.
// server/calendar's Upsert from an inbound webhook). Without a clock it
// answers the zero time, which activity.Write refuses.
func (t *Tx) Now() time.Time {
	if t.db == nil {
		return time.Time{}
	}
	now := t.db.now.Load()
	if now == nil {
		return time.Time{}
	}
	return (*now)()
}
