package store

import bolt "go.etcd.io/bbolt"

// Op is a state mutation committed in the same bbolt transaction as a batch
// of events (see DB.Commit), so a reader that sees an event also sees every
// state change made with it. Ops are built by this package's constructors.
type Op interface {
	apply(tx *bolt.Tx) error
}
