"""Spec 001 AC1's knowledge banks, shared by the relevance suite (`python -m benchmarks relevance`) and the local-model
tests (tests/integration/test_local_model_ranking.py): 50 entries, every one observed once, spread over the three
categories: 20 about parsers, 20 about deployment, 10 about testing, for a session whose active feature is CONTEXT.

The "plain" bank's parser entries use the session context's own words; the "synonyms" bank says the same 20
learnings in other words only (lexer, tokenizer, grammar, malformed input, line numbers ...), so that they share no
word with the context.
"""

from __future__ import annotations

CONTEXT = "Building a file parser with error handling"
SLUG = "file-parser"


# (category, name, description) -- 20 parser entries that use the context's own vocabulary.
PARSER_PLAIN = [
    ("anti-patterns", "Guessing the file format from one sample",
     "Writing a parser against a single example file and assuming every input looks the same. Real files "
     "differ in encoding, line endings and optional fields, and the parser breaks on the second upload."),
    ("anti-patterns", "Swallowing parse errors silently",
     "Catching every exception inside the parser and returning an empty result. Callers cannot tell a blank "
     "file from a broken one, and the bad input is never reported."),
    ("anti-patterns", "Regex soup instead of a grammar",
     "Parsing nested structures with a pile of regular expressions. Each new case adds another pattern until "
     "nobody can predict which one matches; a small tokenizer plus a recursive descent parser is clearer."),
    ("anti-patterns", "Reading the whole file into memory before parsing",
     "Loading a multi-gigabyte input file into one string before the parser starts. Stream the file line by "
     "line and parse incrementally so memory use stays flat."),
    ("anti-patterns", "Parse error messages without line numbers",
     "Reporting 'invalid input' when the parser fails, without the line and column. Users have to bisect the "
     "file by hand to find the offending record."),
    ("anti-patterns", "Aborting the parse on the first malformed record",
     "Stopping the whole import when one row fails to parse. Collect parse errors per record, skip the bad "
     "rows and report them all at the end."),
    ("anti-patterns", "Mixing parsing with business rules",
     "Validating business rules inside the tokenizer loop. Keep the parser focused on turning text into a "
     "syntax tree and run validation on the parsed result."),
    ("patterns", "Round-trip tests for every file format",
     "For each format the parser supports, keep a sample file that is parsed and serialised back; the output "
     "must equal the input. Round trips catch lossy parsing early."),
    ("patterns", "Tokenize first, then parse",
     "Split the input into tokens with positions before the parser looks at structure. Parse errors then "
     "point at exact offsets, and the grammar code stays small."),
    ("patterns", "Structured parse errors",
     "Return parse errors as objects with file name, line, column, expected token and found token, so the "
     "command line and the editor plugin can both display them."),
    ("patterns", "Fuzz the parser with mutated files",
     "Feed the parser truncated, shuffled and random-byte variants of valid files in CI. Any crash is a bug; "
     "the parser must fail with a parse error, never an unhandled exception."),
    ("patterns", "Detect encoding and line endings before parsing",
     "Sniff the byte-order mark and line-ending style when opening a file, normalise them once, and let the "
     "parser work on clean text."),
    ("patterns", "Parser error recovery at statement boundaries",
     "When the parser meets a syntax error, skip to the next statement delimiter and continue, so one typo "
     "yields one error message instead of a cascade."),
    ("patterns", "Versioned file headers for the parser",
     "Put a format version in the first line of every file the tool writes; the parser dispatches on it and "
     "old files keep loading after the format changes."),
    ("heuristics", "Read twenty real files before writing a parser",
     "Before writing a parser, collect a couple dozen real input files from production and read them. Edge "
     "cases like byte-order marks, trailing commas and quoted newlines show up immediately."),
    ("heuristics", "A parser needs a written grammar",
     "If the file format has no written grammar, write one (even informal EBNF) before coding. Arguing about "
     "the grammar is cheaper than arguing about parser behaviour."),
    ("heuristics", "Prefer a parsing library for standard file formats",
     "For CSV, JSON, YAML or TOML use a maintained parsing library; hand-written parsers for standard file "
     "formats miss quoting and escaping rules."),
    ("heuristics", "Budget time for parse error reporting",
     "Good parse error reporting takes as long as the happy path of the parser itself. Plan for it: error "
     "messages are what users see when a file is wrong."),
    ("heuristics", "Keep every file that broke the parser",
     "Each time a user sends a file that broke the parser, add it (anonymised) to the test fixtures together "
     "with the expected parse error message."),
    ("heuristics", "Limit lookahead in hand-written parsers",
     "A parser that needs unbounded lookahead is hard to debug; restructure the grammar so one or two tokens "
     "of lookahead decide every branch."),
]

# The same 20 learnings in other words: no word (nor a variant of one) of the context query.
PARSER_SYNONYMS = [
    ("anti-patterns", "Trusting one sample document",
     "Writing a lexer against one example document and assuming all input looks alike. Real uploads differ "
     "in character encoding, line endings and optional columns, so the reader breaks on the second batch."),
    ("anti-patterns", "Silently discarding syntax faults",
     "Catching every exception inside the reader and returning an empty result. Callers cannot tell a blank "
     "document from a broken one, and the malformed input is never reported."),
    ("anti-patterns", "Regex soup instead of a grammar",
     "Decoding nested structures with a pile of regular expressions. Each new case adds another expression "
     "until nobody can predict which one matches; a small lexer plus recursive descent is clearer."),
    ("anti-patterns", "Slurping the entire input into memory first",
     "Loading a multi-gigabyte document into one string before tokenizing starts. Stream it line by line and "
     "decode incrementally so memory use stays flat."),
    ("anti-patterns", "Syntax diagnostics without line numbers",
     "Reporting 'invalid input' when the syntax check fails, without the line and column. Users have to "
     "bisect the document by hand to find the offending record."),
    ("anti-patterns", "Stopping at the first malformed record",
     "Abandoning the whole import when one row cannot be decoded. Collect the problems per record, skip the "
     "bad rows and list them all at the end."),
    ("anti-patterns", "Mixing syntax analysis with business rules",
     "Validating business rules inside the tokenizer loop. Keep the syntax stage focused on turning text into "
     "a tree and run validation on that tree afterwards."),
    ("patterns", "Round-trip tests for every input format",
     "For each supported format, keep a sample that is decoded and serialised back; the output must equal the "
     "original text. Round trips catch lossy readers early."),
    ("patterns", "Lex first, then analyse structure",
     "Split the input into tokens with positions before looking at structure. Problems then point at exact "
     "offsets, and the grammar code stays small."),
    ("patterns", "Structured syntax diagnostics",
     "Report malformed input as objects with source name, line, column, expected token and found token, so "
     "the command line and the editor plugin can both display them."),
    ("patterns", "Fuzz the tokenizer with mutated inputs",
     "Feed the reader truncated, shuffled and random-byte variants of valid documents in CI. Any crash is a "
     "bug; malformed input must produce a diagnostic, never an exception."),
    ("patterns", "Detect character encoding and newlines up front",
     "Sniff the byte-order mark and newline style when opening a document, normalise them once, and let the "
     "lexer work on clean text."),
    ("patterns", "Resynchronise after a syntax fault",
     "When the reader meets a syntax problem, skip to the next statement delimiter and continue, so one typo "
     "yields one diagnostic instead of a cascade."),
    ("patterns", "Versioned format headers",
     "Put a format version on the first line of every document the tool writes; the reader dispatches on it "
     "and old documents keep loading after the format evolves."),
    ("heuristics", "Study real inputs before writing a grammar",
     "Before writing a grammar or a lexer, collect a couple dozen real input documents from production and "
     "read them. Edge cases like byte-order marks, trailing commas and quoted newlines show up immediately."),
    ("heuristics", "Write the grammar down",
     "If an input format has no written grammar, write one (even informal EBNF) before coding. Arguing about "
     "grammar productions is cheaper than arguing about what the reader accepts."),
    ("heuristics", "Prefer a maintained library for standard syntaxes",
     "For CSV, JSON, YAML or TOML use a maintained decoding library; hand-written readers for standard "
     "syntaxes miss quoting and escaping rules."),
    ("heuristics", "Budget time for diagnostics",
     "Good diagnostics for malformed input take as long as the happy path of the reader itself. Plan for them: "
     "the messages are what users see when their input is wrong."),
    ("heuristics", "Keep malformed samples as regression fixtures",
     "Each time a user sends a document that broke the reader, add it (anonymised) to the test fixtures with "
     "the expected diagnostic message."),
    ("heuristics", "Limit lookahead in recursive descent",
     "A grammar that needs unbounded lookahead is hard to debug; restructure it so one or two tokens of "
     "lookahead decide every branch."),
]

DEPLOYMENT = [
    ("anti-patterns", "Friday afternoon releases",
     "Shipping a release late on Friday leaves nobody around to watch the rollout; problems surface over the "
     "weekend when only a skeleton crew is on call."),
    ("anti-patterns", "Big-bang rollout to all regions",
     "Pushing a new version to every region at once. A bad release takes everything down; roll out region by "
     "region with a pause between waves."),
    ("anti-patterns", "Manual steps in the release checklist",
     "Release steps that someone types by hand (tagging, copying artifacts, editing config on the server) get "
     "skipped under pressure. Script them in the pipeline."),
    ("anti-patterns", "Schema migration and code change in one deploy",
     "Deploying a destructive database migration together with the code that needs it makes rollback "
     "impossible. Expand the schema first, deploy the code, contract later."),
    ("anti-patterns", "Rolling back by redeploying from a laptop",
     "When a rollout goes wrong, compiling the previous version locally and pushing it ships an untested "
     "artifact. Keep the previous artifact and redeploy it through the pipeline."),
    ("anti-patterns", "Ignoring the canary's error rate",
     "Promoting a canary because its health check is green while its error rate is twice the baseline. "
     "Compare canary metrics with the stable fleet before widening the rollout."),
    ("anti-patterns", "A shared staging cluster as the only gate",
     "Relying on a staging cluster that five teams deploy to; it never matches production and is broken half "
     "the time, so it stops being a signal."),
    ("patterns", "Feature flags separate deploy from release",
     "Ship code dark behind a flag, deploy it to production, then enable it for a percentage of users. "
     "Turning the flag off is faster than any rollback."),
    ("patterns", "Blue-green deployment",
     "Keep two identical production environments, deploy to the idle one, run smoke checks and switch the "
     "load balancer. The old environment stays warm for an instant rollback."),
    ("patterns", "Automatic rollback when the SLO burns",
     "Let the deployment controller watch latency and availability objectives during a rollout and revert on "
     "its own when the burn rate crosses a threshold."),
    ("patterns", "Immutable release artifacts",
     "Produce the container image once, tag it with the commit hash, and promote that same image from staging "
     "to production; never rebuild it per environment."),
    ("patterns", "Release notes from merged changes",
     "Generate the changelog from merged pull requests labelled by type, so every release ships with notes "
     "and nobody writes them at the last minute."),
    ("patterns", "Progressive delivery in waves",
     "Roll a new version out to 1%, 10%, 50% and then all hosts, with automatic gates on service metrics "
     "between the waves."),
    ("patterns", "Deploy freezes with an exception path",
     "During peak sales weeks freeze deploys, but keep a documented path for urgent security fixes that needs "
     "two approvers."),
    ("heuristics", "Deploy small and often",
     "A release with three commits is easy to roll back and easy to reason about; one with three hundred is "
     "not. Aim for several production deploys a day."),
    ("heuristics", "A rollback nobody practised will fail",
     "Run the rollback procedure on purpose every few weeks; a rollback path that was never exercised tends "
     "to break on the day it is needed."),
    ("heuristics", "Watch a rollout for one full traffic cycle",
     "Keep an eye on the dashboards until the new version has seen a daily traffic peak; some regressions only "
     "show under load."),
    ("heuristics", "Version deployment configuration with the service",
     "Helm values, Terraform variables and environment settings belong in the same repository as the service "
     "and are reviewed like code."),
    ("heuristics", "One owner per release train",
     "Name a release captain for each train who makes the go or no-go call; releases without an owner drift "
     "and nobody calls the rollback."),
    ("heuristics", "Migrations stay compatible for one release",
     "Old and new versions run side by side during a rollout, so every database migration must work with the "
     "previous release's code."),
]

TESTING = [
    ("anti-patterns", "Sleeping in tests to wait for async work",
     "Fixed sleeps that wait for background jobs make the suite slow and flaky; poll for the condition with a "
     "timeout instead."),
    ("anti-patterns", "Tests that depend on execution order",
     "Tests that share global state pass in one order and fail in another; every test must set up what it "
     "needs itself."),
    ("anti-patterns", "Mocking the unit under test",
     "Mocking so much that the test only checks the mocks. Exercise real behaviour at the boundary and fake "
     "only slow or external dependencies."),
    ("patterns", "Arrange, act, assert",
     "Write every unit test in three visible blocks: setup, the single action, and the assertions; reviewers "
     "spot missing checks at a glance."),
    ("patterns", "Contract tests for every adapter",
     "Run one shared test suite against the real adapter and against its in-memory fake, so the fake cannot "
     "drift away from production behaviour."),
    ("patterns", "Property-based tests for invariants",
     "Generate hundreds of random inputs with a property-testing library and assert invariants such as "
     "idempotence or ordering."),
    ("heuristics", "Quarantine flaky tests within a day",
     "A flaky test left in the main suite trains everyone to ignore red pipelines; move it to quarantine and "
     "open a ticket the same day."),
    ("heuristics", "Measure test suite time in CI",
     "Track how long the suite takes per commit; when it crosses ten minutes, split or parallelise it before "
     "people stop running it locally."),
    ("heuristics", "Coverage is a floor, not a goal",
     "Use coverage to find untested modules, not as a target; chasing a percentage produces tests without "
     "assertions."),
    ("heuristics", "Test the unhappy paths first",
     "When writing tests for new code, start with invalid inputs, timeouts and permission failures; the happy "
     "path usually gets tested anyway."),
]

BANKS = {"plain": PARSER_PLAIN + DEPLOYMENT + TESTING, "synonyms": PARSER_SYNONYMS + DEPLOYMENT + TESTING}
PARSER_NAMES = {"plain": {n for _, n, _ in PARSER_PLAIN}, "synonyms": {n for _, n, _ in PARSER_SYNONYMS}}

