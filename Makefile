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

.PHONY: deps build docs test conformance deploy-test demo bench bench-worker worker-instructions fuzz adversarial hardening chaos clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## make docs: regenerate docs/reference/cli.md from the built binary's help pages (the command declarations).
docs: build
	scripts/cli_reference.py

## make test: build, then every test suite (unit, contract, CLI, integration on the embedded broker), the example
## package, and docs/tutorial.md followed step by step in a package of its own outside the repository.
test: build
	scripts/check-no-history.sh --self-test
	scripts/check-no-history.sh
	scripts/cli_reference.py --check
	$(SWIFT) test $(SWIFT_FLAGS) $(SWIFT_TEST_FLAGS)
	scripts/check_public_api.py
	scripts/codegen_conformance.py
	scripts/schema_differential.py --reuse
	scripts/contract-tests.sh
	scripts/deploy-tests.sh
	scripts/example-tests.sh
	scripts/tutorial-test.sh

## make conformance: the code generator's corpus (Tests/CodegenConformance): every schema it accepts is generated,
## compiled (warnings are errors) and checked on its records; every schema it refuses, refused with the expected error.
conformance: build
	scripts/codegen_conformance.py
	scripts/schema_differential.py --reuse

## make deploy-test: config schema, Dockerfile, Kubernetes manifests, alerts and dashboard, offline.
deploy-test: deps
	scripts/deploy-tests.sh

## make demo: the whole flow on the embedded broker.
demo: build
	.build/debug/switchyard demo

## make bench: release build, corpus, Switchyard against Foundation, msgspec, pydantic, simdjson; then the
## worker benchmark (bench-worker).
bench: deps
	$(SWIFT) build -c release
	scripts/bench.sh
	scripts/bench-worker.sh

## make bench-worker: `switchyard consume` end to end on `switchyard broker` against a Python consumer
## (confluent-kafka + msgspec) and kcat -C, plus the 1 ms handler case and a dead-letter storm; .build/bench/worker.json.
## Knobs: BENCH_WORKER_RECORDS, BENCH_WORKER_ROUNDS, BENCH_WORKER_TIMEOUT, … (scripts/bench_worker.py).
bench-worker: deps
	$(SWIFT) build -c release
	scripts/bench-worker.sh

## make worker-instructions: instructions per record of `switchyard consume` under valgrind's callgrind, on
## bench-worker's records: an A/B of builds that the machine's speed does not move
## (WORKERS="path/to/a/switchyard path/to/b/switchyard"; default: this tree's static build).
worker-instructions:
	@SWITCHYARD_EXTRA_PACKAGES=valgrind scripts/install-deps.sh
	$(SWIFT) build -c release
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static --product switchyard
	.venv/bin/python scripts/worker_instructions.py .build/bench/instructions $(or $(WORKERS),.build/static/release/switchyard)

## make fuzz: the libFuzzer targets (fuzz-decode, fuzz-differential), FUZZ_SECONDS each (default 300),
## built with -sanitize=fuzzer,address in .build/fuzz; crashes land in .build/fuzz-artifacts/.
FUZZ_SECONDS ?= 300
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

## make adversarial: the hostile inputs (Sources/SwitchyardFuzz/AdversarialInputs.swift) through `switchyard replay`: outcome, time, peak RSS.
adversarial: deps
	scripts/adversarial.sh

## make hardening: what CI runs after `make test`: 30 s per fuzz target and the adversarial table.
hardening: deps
	FUZZ_SECONDS=30 scripts/fuzz.sh
	scripts/adversarial.sh

## make chaos: three workers in one group on a 3-broker `switchyard broker --control` for CHAOS_SECONDS (default 600)
## of seeded faults (SIGKILL/SIGTERM and restarts, a broker down, produce/fetch/group request errors, leader and
## coordinator moves, slow, stuck and failing handlers), then a checker that reads only Kafka: 0 lost, order kept,
## duplicates explained, no partition stuck, peak RSS (scripts/chaos.py; CHAOS_SEED repeats a run's faults).
CHAOS_SECONDS ?= 600
chaos: build
	.venv/bin/python scripts/chaos_check.py --self-test
	CHAOS_SECONDS=$(CHAOS_SECONDS) .venv/bin/python scripts/chaos.py .build/chaos

clean:
	rm -rf .build .venv
