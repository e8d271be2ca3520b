# Everyday commands. Each installs what it needs first (scripts/install-deps.sh).
SWIFT ?= swift
SWIFT_FLAGS ?=
# Suites run one after another: the integration suites each start brokers and processes, and on
# two cores running them side by side trades a few minutes for flaky timeouts.
SWIFT_TEST_FLAGS ?= --no-parallel
# CI turns warnings into errors.
ifdef CI
SWIFT_FLAGS += -Xswiftc -warnings-as-errors
endif

.PHONY: deps build test deploy-test demo bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## make test: build, then every test suite (unit, contract, CLI, integration on the embedded broker).
test: build
	$(SWIFT) test $(SWIFT_FLAGS) $(SWIFT_TEST_FLAGS)
	scripts/contract-tests.sh
	scripts/deploy-tests.sh

## make deploy-test: config schema, Dockerfile, Kubernetes manifests, alerts and dashboard, offline.
deploy-test: deps
	scripts/deploy-tests.sh

## make demo: the whole flow on the embedded broker.
demo: build
	.build/debug/switchyard demo

## make bench: release build, corpus, Switchyard against Foundation, msgspec, pydantic, simdjson.
bench: deps
	$(SWIFT) build -c release
	scripts/bench.sh

clean:
	rm -rf .build .venv
