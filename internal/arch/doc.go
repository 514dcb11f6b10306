// Package arch holds no code: its tests keep the module's import graph
// within the layers docs/architecture.md draws ("Layers"), so that the
// architecture is enforced by a tool rather than by memory.
package arch
