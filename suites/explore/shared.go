package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/judge"
)

// Shared reference runs. The processes of one exploration run (Shards)
// make a reconciledObjects run's fault-free reference runs once between them,
// not once each: process i makes reference run i+1 (of references), on
// its own cluster, and writes its end state, and for the first what the
// controller used, into the run's shared folder; every process, those
// included, waits for all of them before its first schedule. The two runs
// are then made on two clusters, so what differs between clusters (a
// cluster's CA, which a ServiceAccount's token Secret carries, say)
// differs between them and is masked in the comparison, as what differs
// between two runs on one cluster always was.
//
// In the folder: reference-N.json (the end state), use.json (the first's
// controllerUse), and reference-N.done once reference run N's spec ended,
// whatever its outcome: a run that failed before its end state was taken
// leaves none, as a process that makes both leaves none in memory.

// sharedWait bounds how long a process waits for the reference runs the
// others make: longer than any subject's pair of them has taken (podgc's,
// the slowest, about 3 min each).
const sharedWait = 20 * time.Minute

// sharedFile is reference run i's file of the kind ext in dir.
func sharedFile(dir string, i int, ext string) string {
	return filepath.Join(dir, fmt.Sprintf("reference-%d.%s", i+1, ext))
}

// writeShared writes v as JSON to path, whole or not at all (a reader
// polling the folder never sees half a file).
func writeShared(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// readShared reads path's JSON into v; false when there is no such file.
func readShared(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(data, v)
}

// awaitShared waits, up to within or ctx's end, until every reference
// run of dir has ended (reference-N.done), then returns the end states
// they left, in order, and the first's controllerUse.
func awaitShared(ctx context.Context, dir string, within time.Duration) ([]*judge.EndState, steadyUse, error) {
	var missing string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, within, true, func(context.Context) (bool, error) {
		for i := range references {
			if _, err := os.Stat(sharedFile(dir, i, "done")); err != nil {
				missing = fmt.Sprintf("reference run %d of %d", i+1, references)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, steadyUse{}, fmt.Errorf("the fault-free %s, which another process of this exploration makes, did not end within %s (%w): see that process's folder (shard-N) and log", missing, within, err)
	}
	var refs []*judge.EndState
	for i := range references {
		var es judge.EndState
		ok, err := readShared(sharedFile(dir, i, "json"), &es)
		if err != nil {
			return nil, steadyUse{}, fmt.Errorf("the shared reference run %d: %w", i+1, err)
		}
		if ok {
			refs = append(refs, &es)
		}
	}
	var use steadyUse
	if _, err := readShared(filepath.Join(dir, "use.json"), &use); err != nil {
		return nil, steadyUse{}, fmt.Errorf("what the controller used in the shared reference run 1: %w", err)
	}
	return refs, use, nil
}
