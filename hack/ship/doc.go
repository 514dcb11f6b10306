// Package ship holds no code: its tests keep what toolgate ships buildable
// and consistent with the repository (issue 20, items 1 and 2): the
// Dockerfile's build context builds from a clean checkout with its version
// stamped, the .dockerignore admits exactly the Dockerfile's COPY set, and
// the Grafana dashboard queries only metrics the binary exports.
package ship
