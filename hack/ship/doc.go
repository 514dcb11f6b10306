// Package ship holds no code: its tests keep what toolgate ships buildable
// and consistent with the repository (docs/decisions.md, "Shipping: image,
// install, make test"): the Dockerfile's build context builds from a clean
// checkout with its version stamped and runs non-root from distroless, the
// .dockerignore admits exactly the Dockerfile's COPY set, the Grafana
// dashboard queries only metrics the binary exports, the Go client's docs
// name the Service config/default deploys, and every command block of
// README.md and docs/quickstart.md runs (against make run where the page
// says so) and prints what the page shows, or is marked as needing what a
// test cannot have; and (docs/decisions.md, "The CLI on cobra, output for
// pipelines") the binary's help, version and test outputs parse and the
// GitHub Action and pre-commit hooks call verbs and flags it has. The
// daemonless image (make image) is checked by its own module, hack/image.
package ship
