package argprofile_test

import (
	"fmt"
	"os"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// A reviewed profile maps a real MCP tool's arguments — camelCase and
// snake_case names, free text, a decimal, a nullable date, an open filter —
// to protocol arguments the unchanged core accepts.
func ExampleProfile_Derive() {
	raw, err := os.ReadFile("testdata/search-entities.yaml")
	if err != nil {
		panic(err)
	}
	p, err := argprofile.Parse(raw)
	if err != nil {
		panic(err)
	}
	out, err := p.Derive([]byte(`{"entityType":"In Progress","query":"Zoë's\nnotes","max_results":10,` +
		`"minScore":0.75,"since":null,"filter":{"b":[1,2],"a":true},"region":"eu-west1"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))

	_, err = p.Derive([]byte(`{"entityType":"Robot","query":"x","max_results":1000,"minScore":0.755}`))
	fmt.Println(err)
	// Output:
	// {"entity-type":"in-progress","filter":{"length":20,"sha256":"31c7b51835fcc67978404ca53f5b5b87dbafb8b72bd0c8a4f72263ccc2e7f622"},"max-results":10,"min-score":75,"query":{"length":12,"sha256":"b5180951a2c50f3db36b325a8cd6631092d60d36bf7105039253358397694df0"},"region":"eu-west1","since":{"tag":"none"}}
	// argprofile: /entityType: case: not one of the reviewed enumeration values; argprofile: /max_results: outOfRange: outside the reviewed range; argprofile: /minScore: fraction: more fraction digits than the reviewed scale
}
