package host

import (
	"fmt"
	"reflect"
	"testing"
)

// fill sets every exported field reachable from v to a distinct non-zero
// value: strings, numbers, true, lists of two, allocated pointers.
func fill(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.String:
		*n++
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Uint64:
		*n++
		v.SetUint(uint64(*n) << 20) // several uvarint bytes
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			*n++
			v.SetBytes(fmt.Appendf(nil, `{"b":%d}`, *n))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// TestRecordEncodingCoversEveryField: a record with every field set
// decodes to itself, so a field added to the request or a fact draft
// without a place in walkRecord fails here. The caller and the binding
// document are deliberately not recorded.
func TestRecordEncodingCoversEveryField(t *testing.T) {
	t.Parallel()
	// Version 2 has no confirmation; the confirmed version has every field.
	for _, version := range []string{PortableVersion, PortableConfirmedVersion} {
		var rec record
		n := 0
		fill(reflect.ValueOf(&rec).Elem(), &n)
		rec.Version = version
		if version == PortableVersion {
			rec.Confirmed = nil
		}
		rec.Request.Caller = Caller{}
		rec.Request.Facts.IntentBinding = nil
		w := &recordWriter{}
		walkRecord(w, &rec)
		var got record
		rd := &recordReader{b: w.b}
		walkRecord(rd, &got)
		if rd.fail != nil || len(rd.b) != 0 {
			t.Fatalf("%s decode: %v, %d bytes left", version, rd.fail, len(rd.b))
		}
		if !reflect.DeepEqual(got, rec) {
			t.Errorf("%s: the record does not decode to itself:\n got %+v\nwant %+v", version, got, rec)
		}
	}
}

// TestRecordSizerIsExact: the sizing walk counts exactly the bytes the
// writer writes.
func TestRecordSizerIsExact(t *testing.T) {
	t.Parallel()
	var rec record
	n := 0
	fill(reflect.ValueOf(&rec).Elem(), &n)
	rec.Version = PortableConfirmedVersion // every section
	var size recordSizer
	walkRecord(&size, &rec)
	w := &recordWriter{}
	walkRecord(w, &rec)
	if size.n != len(w.b) {
		t.Errorf("sized %d, wrote %d", size.n, len(w.b))
	}
}
