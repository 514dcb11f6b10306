# syntax=docker/dockerfile:1
# Build from a clean clone:
#   docker build --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse HEAD) -t toolgate .
# The build context holds no .git (.dockerignore), so the version and commit
# come from the build arguments; without them the binary says "(devel)".
# hack/ship's TestDockerfileContextBuilds copies exactly the COPY set below
# from a clean checkout into an empty directory and runs the RUN go build line.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY client/ client/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
ARG VERSION=""
ARG COMMIT=""
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w -X github.com/toolgate/toolgate/internal/buildinfo.version=${VERSION} -X github.com/toolgate/toolgate/internal/buildinfo.commit=${COMMIT}" -o /out/toolgate ./cmd/toolgate

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=""
ARG COMMIT=""
LABEL org.opencontainers.image.title="toolgate" \
      org.opencontainers.image.description="Authorization gate for AI-agent tool calls" \
      org.opencontainers.image.source="https://github.com/toolgate/toolgate" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
COPY --from=build /out/toolgate /toolgate
USER 65532:65532
ENTRYPOINT ["/toolgate"]
