package vocab

//go:generate go run ../../../hack/vocabgen -in vocabularies.txt -out zz_generated.vocab.go
