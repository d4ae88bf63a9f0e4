package kind

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/steadystate-dev/steadystate/internal/config"
)

// CheckConfig reads a kind config file strictly, so a typo is named before
// any container starts.
func CheckConfig(path string) error {
	if path == "" {
		return fmt.Errorf("no kind config file: set KIND_CONFIG to kind-config.yaml at the module root (make does)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("kind config %s: %w", path, err)
	}
	var c v1alpha4.Cluster
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return fmt.Errorf("kind config %s does not parse: %v: fix it (see https://kind.sigs.k8s.io/docs/user/configuration/)", path, err)
	}
	if c.Kind != "Cluster" || c.APIVersion != "kind.x-k8s.io/v1alpha4" {
		return fmt.Errorf("kind config %s: kind %q, apiVersion %q: expected kind Cluster, apiVersion kind.x-k8s.io/v1alpha4", path, c.Kind, c.APIVersion)
	}
	return nil
}

// dockerAnswers checks for a Docker engine kind can use.
func dockerAnswers(ctx context.Context) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return fmt.Errorf("PROVIDER=kind needs Docker and there is no docker command: install it (apt-get install -y docker.io), or use PROVIDER=local")
	}
	if out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return fmt.Errorf("PROVIDER=kind needs a Docker engine and none answers (DOCKER_HOST=%q: %s): start one with `export DOCKER_HOST=$(hack/docker-engine.sh start)` (make e2e PROVIDER=kind does), or use PROVIDER=local", config.FromEnv().DockerHost, strings.TrimSpace(string(out)))
	}
	return nil
}

// imageExists checks that the node image is in the engine: kind would
// otherwise try to pull it, which hangs or fails late without a registry.
func imageExists(ctx context.Context, image string) error {
	if err := exec.CommandContext(ctx, "docker", "image", "inspect", image).Run(); err != nil {
		return fmt.Errorf("node image %s does not exist in the Docker engine: build it with `make kind-image` (offline, from source), pull a kindest/node image, or set KIND_NODE_IMAGE to one you have", image)
	}
	return nil
}
