package canon

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
)

// TestEncoderChecksBoundBeforeAppend drives the encoder's primitives
// directly. A segment that would cross MaxSize is refused before any octet
// of it is appended. After that the error is sticky, so even a segment that
// would fit appends nothing.
func TestEncoderChecksBoundBeforeAppend(t *testing.T) {
	t.Parallel()
	name, err := ident.ParseName("a")
	if err != nil {
		t.Fatal(err)
	}
	objectA, err := value.Object([]value.Field{value.NewField(name, value.Bool(true))}) // {a: true}
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		n       int // octets already accepted
		write   func(*encoder)
		wantBuf []byte
		wantN   int
		wantErr bool
	}{
		"one octet fits exactly at the bound": {
			n:       MaxSize - 1,
			write:   func(e *encoder) { e.byte1(0xAB) },
			wantBuf: []byte{0xAB},
			wantN:   MaxSize,
		},
		"a u16 one octet short of room is refused whole": {
			n:       MaxSize - 1,
			write:   func(e *encoder) { e.uint16(0xABCD) },
			wantN:   MaxSize - 1,
			wantErr: true,
		},
		"a u64 at the bound is refused": {
			n:       MaxSize,
			write:   func(e *encoder) { e.uint64(1) },
			wantN:   MaxSize,
			wantErr: true,
		},
		"a string payload that crosses is refused after its prefix": {
			n:       MaxSize - 6,
			write:   func(e *encoder) { e.str("abc") },
			wantBuf: []byte{0, 0, 0, 3},
			wantN:   MaxSize - 2,
			wantErr: true,
		},
		"the error is sticky: a fitting octet after a refusal is dropped": {
			n: MaxSize - 1,
			write: func(e *encoder) {
				e.uint32(1)
				e.byte1(0xAB)
			},
			wantN:   MaxSize - 1,
			wantErr: true,
		},
		"an object count that does not fit u16 is refused, not truncated": {
			write:   func(e *encoder) { e.len16(math.MaxUint16 + 1) },
			wantErr: true,
		},
		"the largest u16 count is written": {
			write:   func(e *encoder) { e.len16(math.MaxUint16) },
			wantBuf: []byte{0xFF, 0xFF},
			wantN:   2,
		},
		"an object field after a refused name is skipped whole": {
			n: MaxSize - 4,
			write: func(e *encoder) {
				e.value(objectA)
			},
			wantBuf: []byte{0x17, 0x00, 0x01},
			wantN:   MaxSize - 1,
			wantErr: true,
		},
		"a negative length is refused": {
			write:   func(e *encoder) { e.len32(-1) },
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := encoder{n: tc.n, emit: true}
			tc.write(&e)
			if diff := cmp.Diff(tc.wantBuf, e.buf); diff != "" {
				t.Errorf("buf (-want +got):\n%s", diff)
			}
			if e.n != tc.wantN {
				t.Errorf("n = %d, want %d", e.n, tc.wantN)
			}
			if got := e.err != nil; got != tc.wantErr {
				t.Fatalf("err = %v, want error %v", e.err, tc.wantErr)
			}
			if tc.wantErr && !errors.Is(e.err, fault.ErrLimitExceeded) {
				t.Errorf("err = %v, want LimitExceeded", e.err)
			}
		})
	}
}

// TestEncoderNoArithmeticWrap checks that huge lengths are refused without
// the running total wrapping around.
func TestEncoderNoArithmeticWrap(t *testing.T) {
	t.Parallel()
	e := encoder{n: MaxSize / 2, emit: true}
	if e.reserve(math.MaxInt) || e.n != MaxSize/2 || !errors.Is(e.err, fault.ErrLimitExceeded) {
		t.Errorf("reserve(MaxInt): n = %d, err = %v; want n unchanged and LimitExceeded", e.n, e.err)
	}
	if strconv.IntSize < 64 {
		return // a length beyond 32 bits needs a 64-bit int
	}
	e = encoder{}
	if e.len32(math.MaxInt); !errors.Is(e.err, fault.ErrLimitExceeded) || e.n != 0 {
		t.Errorf("len32(MaxInt): n = %d, err = %v; want n 0 and LimitExceeded", e.n, e.err)
	}
}

// TestCountingPassWritesNothing checks that the first pass only counts.
func TestCountingPassWritesNothing(t *testing.T) {
	t.Parallel()
	e := encoder{}
	e.envelope(&Envelope{Root: value.Bool(true)}) // empty rows still count their prefixes
	if e.buf != nil || e.err != nil || e.n != 9+3+9+3+9+3+3+3+1+1 {
		t.Errorf("counting pass: buf %v, n %d, err %v", e.buf, e.n, e.err)
	}
}
