package serving

import "github.com/toolgate/toolgate/internal/host"

// The confirmations extension, toolgate.confirmations/1
// (docs/confirmation.md), as the domain's Host offers it.

// ConfirmationsEnabled reports whether the domain opted in.
func (d *Domain) ConfirmationsEnabled() bool { return d.host.ConfirmationsEnabled() }

// IsConfirmer reports whether c holds the domain's confirmer role.
func (d *Domain) IsConfirmer(c host.Caller) bool { return d.host.IsConfirmer(c) }

// RequestConfirmation builds the binding of a requireConfirmation Decision
// (see host.Host.RequestConfirmation).
func (d *Domain) RequestConfirmation(r host.AuthorizeRequest, res *host.Result, named []string) (*host.ConfirmationBinding, error) {
	return d.host.RequestConfirmation(r, res.Decision, named)
}

// Confirm records a confirmer's answer (see host.Host.Confirm).
func (d *Domain) Confirm(c host.Caller, b *host.ConfirmationBinding, id, answer string, at uint64) (*host.Confirmation, error) {
	return d.host.Confirm(c, b, id, answer, at)
}

// AuthorizeConfirmed issues the Authorization a confirmation approved (see
// host.Host.AuthorizeConfirmed) and seals its portable record with the
// domain's active key, as Authorize does.
func (d *Domain) AuthorizeConfirmed(r host.AuthorizeRequest, b *host.ConfirmationBinding, c *host.Confirmation) (res *host.Result, envelope string, err error) {
	signer := d.keys.active
	if signer == nil {
		return nil, "", ErrNoSigningKey
	}
	res, err = d.host.AuthorizeConfirmed(r, b, c)
	if err != nil {
		return nil, "", err
	}
	if res.Authorization != nil {
		envelope = signer.Seal(res.Portable)
	}
	return res, envelope, nil
}
