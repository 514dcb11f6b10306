# syntax=docker/dockerfile:1
# Build: docker build -t toolgate .   (no Docker engine on the dev machines; keep this correct by review)
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags='-s -w' -o /out/toolgate ./cmd/toolgate

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/toolgate /toolgate
USER 65532:65532
ENTRYPOINT ["/toolgate"]
