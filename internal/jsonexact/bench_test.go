package jsonexact_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// toolCallArgs is a realistic ~8-field tool-call argument object.
const toolCallArgs = `{"recipient":"ops@example.com","subject":"Quarterly report","body":"Please find the Q3 figures attached.\nRegards",` +
	`"priority":2,"maxRetries":3,"dryRun":false,"tags":["finance","q3","external"],"account":{"id":"acct-1","region":"eu-west-1"}}`

// largeArgs is ~64 KiB: 200 records of nested objects and arrays.
func largeArgs() string {
	var b strings.Builder
	b.WriteString(`{"records":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		n := strconv.Itoa(i)
		b.WriteString(`{"id":"rec-` + n + `","seq":` + n + `,"amount":1844674407370955` + n + `,"active":true,` +
			`"labels":["alpha","beta","gamma"],"owner":{"name":"user ` + n + `","team":"payments","escaped":"tab\there"},` +
			`"notes":"` + strings.Repeat("lorem ipsum ", 20) + `"}`)
	}
	b.WriteString(`],"count":200}`)
	return b.String()
}

func BenchmarkDecode(b *testing.B) {
	inputs := map[string][]byte{
		"toolCall8Fields": []byte(toolCallArgs),
		"large64KiB":      []byte(largeArgs()),
	}
	for _, name := range []string{"toolCall8Fields", "large64KiB"} {
		in := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := jsonexact.Decode(in, jsonexact.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// encoding/json for scale only; it is not a safe substitute.
		b.Run("encodingJSON-"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(in, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
