"""KeywordGenerator contract: each tier, alone in TieredKeywords, yields keywords satisfying spec 001 AC5.

The LLM tiers run against fake servers (see `_keyword_servers`); failures, garbage and slowness must make
TieredKeywords fall through to the local extractive tier.
"""

from __future__ import annotations

import re
import threading

import httpx2
import pytest

from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator
from memory_adapters.keywords.haiku_keyword_generator import HaikuKeywordGenerator
from memory_adapters.keywords.ollama_keyword_generator import OllamaKeywordGenerator
from memory_core.errors import KeywordGenerationError
from memory_core.policies.keyword_tiers import Tier, TieredKeywords
from memory_core.entries.keywords import GENERIC_WORDS
from memory_core.ports.keyword_generator import KeywordGenerator
from tests._keyword_cases import CASES, TITLE_ONLY, ac5_violations
from tests.contract._keyword_servers import FakeLLM, anthropic_transport, ollama_generate_transport
from tests.fakes import FakeTicker

CASE_IDS = [re.sub(r"\W+", "-", c.name.lower())[:30] for c in CASES]
HAIKU_KEY = "sk-ant-FAKE-contract-key-000000001"
OLLAMA_HOST = "http://127.0.0.1:9999"


def local_answer(case) -> list[str]:
    """What the chain answers when only the local extractive tier is left."""
    return TieredKeywords([Tier("local", LocalExtractiveKeywordGenerator())]).generate(*case.fields)


class HeldGate(threading.Event):
    """The fake server's gate; `reached` is set once a request is being held at it."""

    def __init__(self) -> None:
        super().__init__()
        self.reached = threading.Event()

    def wait(self, timeout=None) -> bool:
        """Note that a request arrived, then hold it like a closed gate."""
        self.reached.set()
        return super().wait(timeout)


def outcome(generator, case) -> list[str]:
    """The tier's answer, with a KeywordGenerationError counted as no keywords (both are allowed)."""
    try:
        return generator.generate(*case.fields)
    except KeywordGenerationError:
        return []


class KeywordGeneratorContract:
    """Behaviour every KeywordGenerator shows; subclasses supply `make_generator(llm)`, the generator under test
    (`llm`: the fake server LLM tiers provide, else None)."""

    @pytest.fixture
    def generator(self, llm):
        return self.make_generator(llm)

    def test_is_a_keyword_generator(self, generator):
        assert isinstance(generator, KeywordGenerator)

    @pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
    def test_returns_a_list_of_strings(self, generator, case):
        keywords = generator.generate(*case.fields)
        assert isinstance(keywords, list) and keywords
        assert all(isinstance(k, str) for k in keywords)

    @pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
    def test_as_the_only_tier_it_satisfies_ac5(self, generator, case):
        keywords = TieredKeywords([Tier("only", generator)]).generate(*case.fields)
        assert ac5_violations(keywords, case.description, case.reasoning) == []


class TestLocalExtractiveKeywordGenerator(KeywordGeneratorContract):
    def make_generator(self, llm):
        return LocalExtractiveKeywordGenerator()

    @pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
    def test_keywords_are_taken_from_the_entry_and_never_generic(self, generator, case):
        keywords = generator.generate(*case.fields)
        words = set(re.findall(r"[a-z0-9]+", " ".join([case.name, case.description, case.reasoning]).lower()))
        assert len(keywords) <= 10 and not set(keywords) & GENERIC_WORDS
        assert all(set(k.split("-")) <= words for k in keywords)
        assert generator.generate(*case.fields) == keywords


class LLMKeywordChecks:
    """What an LLM tier must do with a failing, confused or slow server (mixed in before the contract)."""

    model: str
    wrap_in_prose = False

    @pytest.fixture
    def llm(self, monkeypatch):
        monkeypatch.setenv("ANTHROPIC_API_KEY", HAIKU_KEY)
        monkeypatch.setenv("OLLAMA_HOST", OLLAMA_HOST)
        llm = FakeLLM(key=HAIKU_KEY, wrap_in_prose=self.wrap_in_prose)
        yield llm
        if llm.gate is not None:
            llm.gate.set()
        assert llm.problems == [], "the adapter sent a request the real API would not get in this shape"

    def test_prompt_names_the_entry_and_the_stopword_rule(self, generator, llm):
        case = CASES[2]
        generator.generate(*case.fields)
        [request] = llm.requests
        assert request.model == self.model
        assert f"Title: {case.name}\n" in request.prompt and case.description in request.prompt
        rule = re.search(r"EXCLUDE these generic words: (.*)", request.prompt)
        assert rule and set(rule.group(1).replace(",", " ").split()) == GENERIC_WORDS

    @pytest.mark.parametrize("status", [401, 429, 500, 503])
    def test_http_error_gives_no_keywords_and_the_next_tier_answers(self, generator, llm, status):
        llm.status = status
        case = CASES[0]
        assert outcome(generator, case) == []
        tiers = TieredKeywords([Tier("llm", generator), Tier("local", LocalExtractiveKeywordGenerator())])
        assert tiers.generate(*case.fields) == local_answer(case)

    @pytest.mark.parametrize("garbage", ["Sorry, I can't label this entry.", '["sqlite", "wal"', "",
                                         '{"keywords": "sqlite, wal, pragma"}', "[1, 2, 3]"])
    def test_garbage_answer_gives_no_keywords_and_the_next_tier_answers(self, generator, llm, garbage):
        llm.answer = lambda prompt: garbage
        case = CASES[2]
        assert outcome(generator, case) == []
        tiers = TieredKeywords([Tier("llm", generator), Tier("local", LocalExtractiveKeywordGenerator())])
        assert tiers.generate(*case.fields) == local_answer(case)

    def test_generic_answer_is_rejected_and_the_next_tier_answers(self, generator, llm):
        llm.answer = lambda prompt: '["code", "data", "bug", "fix"]'
        case = CASES[3]
        tiers = TieredKeywords([Tier("llm", generator), Tier("local", LocalExtractiveKeywordGenerator())])
        assert tiers.generate(*case.fields) == local_answer(case)

    def test_slow_tier_is_abandoned_after_the_timeout_and_the_next_tier_answers(self, generator, llm):
        llm.gate = gate = HeldGate()  # the llm fixture opens it at teardown, so the abandoned call ends
        case = CASES[1]
        ticker = FakeTicker()  # reports the timeout at once, while the request is still held
        warnings: list[str] = []
        tiers = TieredKeywords([Tier("llm", generator), Tier("local", LocalExtractiveKeywordGenerator())],
                               timeout_s=0.5, ticker=ticker, warn=warnings.append)
        keywords = tiers.generate(*case.fields)
        assert gate.reached.wait(60), "the slow tier never sent its request"
        assert len(llm.requests) == 1
        assert ticker.monotonic() == 0.5, "the slow tier was given exactly its timeout"
        assert warnings == ["keyword tier llm timed out"]
        assert keywords == local_answer(case)


class TestHaikuKeywordGenerator(LLMKeywordChecks, KeywordGeneratorContract):
    model = "claude-haiku-4-5"
    wrap_in_prose = True  # Haiku often explains itself around the array

    def make_generator(self, llm):
        return HaikuKeywordGenerator(http_client=httpx2.Client(transport=anthropic_transport(llm)))

    def test_request_goes_to_the_messages_api_with_the_key(self, generator, llm):
        generator.generate(*CASES[0].fields)
        [request] = llm.requests
        assert request.url == "https://api.anthropic.com/v1/messages"
        assert request.auth == HAIKU_KEY
        assert request.body["messages"][0]["role"] == "user"

    def test_missing_key_fails_at_construction_and_sends_nothing(self, llm, monkeypatch):
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        with pytest.raises(KeywordGenerationError, match="ANTHROPIC_API_KEY"):
            self.make_generator(llm)
        assert llm.requests == []

    @pytest.mark.parametrize("status", [400, 401, 429, 500])
    def test_key_never_appears_in_the_error_message(self, generator, llm, status):
        llm.status, llm.error_detail = status, f"invalid x-api-key {HAIKU_KEY}"
        with pytest.raises(KeywordGenerationError) as caught:
            generator.generate(*CASES[0].fields)
        assert HAIKU_KEY not in str(caught.value)


class TestOllamaKeywordGenerator(LLMKeywordChecks, KeywordGeneratorContract):
    model = "llama3.2"

    def make_generator(self, llm):
        return OllamaKeywordGenerator(transport=ollama_generate_transport(llm, OLLAMA_HOST))

    def test_request_goes_to_ollama_host_without_streaming(self, generator, llm):
        generator.generate(*CASES[0].fields)
        [request] = llm.requests
        assert request.url == "http://127.0.0.1:9999/api/generate"
        assert request.body["stream"] is False

    def test_json_object_answer_from_format_json_is_understood(self, generator, llm):
        # With "format": "json" Ollama models often wrap the array in an object.
        llm.answer = lambda prompt: '{"keywords": ["sqlite", "busy-timeout", "wal", "pragma"]}'
        assert generator.generate(*CASES[2].fields) == ["sqlite", "busy-timeout", "wal", "pragma"]


def test_tiers_count_only_keywords_grounded_in_description_or_reasoning(monkeypatch):
    # Spec 001 AC5 grounds keywords in the description or reasoning; an answer drawn from the title alone
    # must not be accepted, so the chain moves on to the next tier.
    monkeypatch.setenv("ANTHROPIC_API_KEY", HAIKU_KEY)
    haiku = HaikuKeywordGenerator(http_client=httpx2.Client(transport=anthropic_transport(FakeLLM(key=HAIKU_KEY))))
    tiers = TieredKeywords([Tier("haiku", haiku), Tier("local", LocalExtractiveKeywordGenerator())])
    keywords = tiers.generate(*TITLE_ONLY.fields)
    assert ac5_violations(keywords, TITLE_ONLY.description, TITLE_ONLY.reasoning) == []
