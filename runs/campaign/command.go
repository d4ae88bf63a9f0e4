package campaign

// The campaign command's subcommands, as the steadystate program runs
// them: their flags, their help and what they check before they act.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// Command runs the campaign command's subcommands: job prints the campaign's
// Indexed Job, index runs one index in its pod, gather packs the
// indices' results into one bundle.
func Command(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	if cli.WantsHelp(args[:min(1, len(args))]) {
		return flag.ErrHelp
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: campaign needs job (print the Indexed Job), index (run one index, in its pod) or gather (bundle the indices' results)", cli.ErrUsage)
	}
	switch args[0] {
	case "job":
		return job(args[1:], stdout)
	case "index":
		return index(ctx, cfg, args[1:], stdout, stderr)
	case "gather":
		return gather(args[1:], stdout)
	}
	return fmt.Errorf("%w: campaign %q: use job, index or gather", cli.ErrUsage, args[0])
}

func job(args []string, stdout io.Writer) error {
	cmd := cli.New("campaign job", "campaign job --indices N [--seeds-per-index K] [--seed FIRST] [--budget 10m] [--capability C] [--name NAME] [--parallelism P] [--claim PVC] [--image IMAGE]",
		"Print a campaign as a Kubernetes Indexed Job, with its namespace, service account and role\n"+
			"binding, to apply to an existing cluster: index i explores the subject file of the ConfigMap\n"+
			SubjectMap+" with K seeds from FIRST+i*K, each for the budget, and leaves its results\n"+
			"on its node (or on --claim); `steadystate campaign gather` bundles them. See docs/exploration.md.")
	fs := cmd.FS
	j := Job{}
	fs.StringVar(&j.Name, "name", "steadystate-campaign", "the Job's name")
	fs.StringVar(&j.Image, "image", "steadystate/steadystate:dev", "the steadystate image (the one conform's Job runs)")
	fs.IntVar(&j.Indices, "indices", 0, "how many indices the Job has")
	fs.IntVar(&j.Parallelism, "parallelism", 0, "how many indices run at once (default: all)")
	fs.IntVar(&j.SeedsPerIndex, "seeds-per-index", 1, "how many seeds each index explores, one exploration run each")
	seed := fs.String("seed", "", "index 0's first seed (default: from the clock)")
	fs.DurationVar(&j.Budget, "budget", 10*time.Minute, "each seed's exploration budget: how long new schedules may start")
	fs.StringVar(&j.Capability, "capability", "", "the capability to explore (default: the subject's first that exploration drives)")
	fs.StringVar(&j.Claim, "claim", "", "a ReadWriteMany PersistentVolumeClaim for the results (default: a folder on each index's node, "+HostResults+")")
	if err := cmd.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: campaign job takes flags only, not %q", cli.ErrUsage, fs.Arg(0))
	}
	if !cmd.Set("indices") {
		return fmt.Errorf("%w: campaign job needs --indices N: how many indices (pods) the campaign's seeds are spread over", cli.ErrUsage)
	}
	if j.Parallelism == 0 {
		j.Parallelism = j.Indices
	}
	j.FirstSeed = uint64(time.Now().UnixNano())
	if *seed != "" {
		var err error
		if j.FirstSeed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
			return fmt.Errorf("--seed %q is not a seed: give a number", *seed)
		}
	}
	out, err := j.Manifest()
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

func index(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("campaign index", "campaign index --index I --job-uid UID --subject FILE --seed FIRST --seeds-per-index K --budget D --out DIR [--capability C]",
		"Run one index of a campaign, as the campaign's Job runs it in each pod: explore the index's\n"+
			"seeds in turn, into DIR/UID/index-I, and write its record last.")
	fs := cmd.FS
	var x Index
	fs.IntVar(&x.Index, "index", -1, "the index (the Job's completion index)")
	fs.StringVar(&x.Job, "job-uid", "", "the Job's uid")
	fs.StringVar(&x.Subject, "subject", "", "the subject file")
	fs.StringVar(&x.Capability, "capability", "", "the capability to explore")
	fs.Uint64Var(&x.FirstSeed, "seed", 0, "index 0's first seed")
	fs.IntVar(&x.SeedsPerIndex, "seeds-per-index", 1, "how many seeds each index explores")
	fs.DurationVar(&x.Budget, "budget", 10*time.Minute, "each seed's exploration budget")
	fs.StringVar(&x.Out, "out", "", "the folder the campaign's results go below")
	if err := cmd.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: campaign index takes flags only, not %q", cli.ErrUsage, fs.Arg(0))
	case x.Subject == "" || x.Out == "":
		return fmt.Errorf("%w: campaign index needs --subject FILE and --out DIR (the campaign's Job gives them)", cli.ErrUsage)
	case x.SeedsPerIndex < 1 || x.Budget <= 0:
		return fmt.Errorf("%w: --seeds-per-index %d, --budget %s: an index explores at least one seed, for a budget above zero", cli.ErrUsage, x.SeedsPerIndex, x.Budget)
	}
	return x.Run(ctx, cfg, stdout, stderr)
}

func gather(args []string, stdout io.Writer) error {
	cmd := cli.New("campaign gather", "campaign gather --indices N [--name NAME] [--out campaign.tar.gz] DIR",
		"Pack the results of a campaign's indices, DIR holding each index's folder (index-<i>) as its\n"+
			"pod left it, into one bundle whose manifest lists the indices present and missing, for\n"+
			"`steadystate verify`. It fails when an index is missing or the explorations did not pass.")
	fs := cmd.FS
	indices := fs.Int("indices", 0, "how many indices the campaign's Job had")
	name := fs.String("name", "steadystate-campaign", "the campaign Job's name")
	out := fs.String("out", "campaign.tar.gz", "the bundle to write")
	rest, err := cmd.ParseAll(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 || !cmd.Set("indices") {
		return fmt.Errorf("%w: campaign gather takes --indices N (the Job's) and one folder holding the indices' index-<i> folders", cli.ErrUsage)
	}
	_, err = Gather(rest[0], *out, *name, *indices, stdout)
	return err
}
