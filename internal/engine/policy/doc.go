// Package policy implements Policy Snapshots, the policy rule model, condition
// normalization, deterministic evaluation and the Policy Decision of spec
// Sections 19–22, with the closed vocabularies of Section 48, the limits of
// Section 39 and the orders of Section 50.
//
// # Publication
//
// [Publish] and [PublishSuccessor] validate an untrusted [SnapshotDraft]
// completely or reject it with a *fault.Error whose path names the offending
// member in draft order, e.g.
// "policies[1].rules[4].condition.all[2].predicate.values[0]". Nothing partial
// is returned. Only a Role Authority holding policyAdministrationAuthority can
// publish, and the Snapshot is bound to that authority's Host domain and
// records it. Limits are checked before the work they bound.
//
// Conditions are compiled once at publication: compound children are
// normalized by the Section 50 key (see [Condition.Key]), duplicates reject,
// and every predicate operand is parsed into its typed form. Evaluation then
// reads a [Facts] view without parsing anything.
//
// # Evaluation
//
// [Evaluate] applies one complete Evaluation Input to one exact Snapshot and
// one exactly selected Policy Definition. Structural misuse (another
// snapshot, a mixed Host domain, an unsupported input version, a malformed
// Decision identity) rejects with no Decision. Everything else, including a
// missing, unknown or retired policy, yields a complete [Decision]; only an
// allow Decision can later become eligible for Authorization, and even an
// exact allow Decision is not Authorization.
//
// # Decisions the spec leaves open
//
//   - Any Section 48 reason token is accepted as a rule reason; rule reasons
//     are stable categories, never free text.
//   - Section 19 ("Policy content can only preserve or reduce authority") is
//     enforced at publication: every Capability and Resource named by a
//     scope constraint or by a predicate operand must lie within the
//     publisher's Host Authority ceiling (fault.OutOfRange otherwise).
//   - Enum operands in normalization keys use their 0-based Section 48 order
//     number, Capabilities included (they are a Section 48 vocabulary);
//     Resources and identities are exact ASCII text.
//   - A policy may be first published in any lifecycle; a successor may only
//     keep it or move it forward (active→deprecated→retired, active→retired).
//   - A Selection with a zero Policy identity denies policyMissing; a zero
//     Policy generation with a present identity denies policyUnknown.
//   - Deny Decisions carry empty scope but keep their matched rules, reasons
//     and obligations as evidence. A Decision exceeding an aggregation limit
//     (128 obligations, 128 reasons, 128 matched rules) is a deny whose only
//     reason is policyLimitExceeded, with empty scope, no matched rules and
//     no obligations. (With 128 rules per policy and 26 reasons, only the
//     obligation limit is reachable; the other two are still checked.)
//   - When scope filtering loses a requested member, the outcome reason is
//     replaced by capabilityNotPermitted and/or resourceNotPermitted; matched
//     rule reasons are still included.
//   - Because a Host Authority holds at most 16 Resources and 8
//     Capabilities, the ceiling rule is tighter than the Section 39
//     constraint bounds (32 Resources, 16 Capabilities): those bounds are
//     still checked first (fault.LimitExceeded), then the ceiling.
//   - Rejection codes: a missing or wrong role is fault.Unauthorized; an
//     empty required collection (policies, rules, compound children,
//     collection operands) fault.Missing; an operand field the predicate
//     does not take, or a scope on a deny rule, fault.UnknownField; a
//     successor that drops a prior policy version fault.Missing, changes its
//     rules fault.Mismatch, or moves a lifecycle backwards fault.Ineligible;
//     a non-successor generation or identity fault.Mismatch.
//   - The condition digest is taken over the normalization key, which is
//     injective over validated content (identifiers never contain ":", ","
//     "[" or "]").
package policy
