"""The registry: names, tokens, and a token kept only as its hash."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.events import Refused
from core.identity import BOT_NAME, Identity, Registry, hash_token
from protocol import NAME_RULE, is_name

TOKEN = "t" * 43


def refusal(registry: Registry, name: str) -> str:
    with pytest.raises(Refused) as refused:
        registry.create("p-new", name, "another-token", 0.0)
    return refused.value.code


@pytest.mark.parametrize(
    "name",
    ["", "a" * 21, "Ann Lee", " Ann", "Ann\n", "Zoë", "名前", "a.b", "a@b", "Ann!"],
    ids=repr,
)
def test_a_bad_name_is_bad_name(name: str) -> None:
    registry = Registry()
    assert refusal(registry, name) == "bad_name"
    assert len(registry) == 0


@given(st.text(max_size=25) | st.from_regex(r"(?i)bot-[a-z0-9_-]{0,16}", fullmatch=True))
def test_the_registry_applies_the_protocols_name_rule(name: str) -> None:
    try:
        Registry().create("p-1", name, TOKEN, 0.0)
    except Refused as refused:
        assert refused.code == "bad_name"
        if is_name(name):  # the rule allows it, but the prefix is the bots'
            assert name.upper().startswith(BOT_NAME)
            assert refused.message == f"names starting with {BOT_NAME} are the server's bots"
        else:
            assert refused.message == NAME_RULE
    else:
        assert is_name(name) and not name.upper().startswith(BOT_NAME)


@pytest.mark.parametrize("name", ["a", "a" * 20, "Ann_Lee-2", "007", "-_-"])
def test_a_good_name_is_accepted(name: str) -> None:
    identity = Registry().create("p-1", name, TOKEN, 5.0)
    assert (identity.player_id, identity.name, identity.created) == ("p-1", name, 5.0)


@pytest.mark.parametrize("again", ["Ann", "ann", "ANN", "aNn"])
def test_a_name_is_taken_ignoring_case(again: str) -> None:
    registry = Registry()
    registry.create("p-1", "Ann", TOKEN, 0.0)
    assert refusal(registry, again) == "name_taken"
    assert len(registry) == 1


def test_a_token_names_its_player() -> None:
    registry = Registry()
    identity = registry.create("p-1", "Ann", TOKEN, 0.0)
    assert registry.by_token(TOKEN) == identity


@pytest.mark.parametrize("token", ["wrong", "", TOKEN.upper(), TOKEN + "x"])
def test_a_wrong_token_is_bad_token(token: str) -> None:
    registry = Registry()
    registry.create("p-1", "Ann", TOKEN, 0.0)
    with pytest.raises(Refused) as refused:
        registry.by_token(token)
    assert refused.value.code == "bad_token"


def test_a_token_is_kept_only_as_its_hash() -> None:
    identity = Registry().create("p-1", "Ann", TOKEN, 0.0)
    assert identity.token_hash == hash_token(TOKEN) == hashlib.sha256(TOKEN.encode()).hexdigest()
    assert TOKEN not in repr(identity)


def test_a_registry_loaded_from_the_store_knows_names_and_tokens() -> None:
    ann = Identity("p-1", "Ann", hash_token(TOKEN), 0.0)
    registry = Registry([ann])
    assert registry.by_token(TOKEN) == ann
    assert refusal(registry, "ANN") == "name_taken"


def test_a_discarded_player_frees_their_name_and_token() -> None:
    registry = Registry()
    registry.create("p-1", "Ann", TOKEN, 0.0)
    registry.discard("p-1")
    with pytest.raises(Refused):
        registry.by_token(TOKEN)
    assert registry.create("p-2", "ann", TOKEN, 0.0).player_id == "p-2"


def test_a_rename_frees_the_old_name_and_keeps_the_token() -> None:
    registry = Registry()
    ann = registry.create("p-ann", "Ann", TOKEN, 0.0)
    registry.rename("p-ann", "Anna")
    assert registry.by_token(TOKEN) == Identity("p-ann", "Anna", ann.token_hash, 0.0)
    registry.check_name("ANN")  # free: raises nothing
    with pytest.raises(Refused) as refused:
        registry.check_name("anna")
    assert refused.value.code == "name_taken"
    registry.rename("p-unknown", "Cleo")  # a player this registry never knew: nothing
    registry.check_name("Cleo")


def test_a_forgotten_players_token_names_nobody_and_their_name_is_free() -> None:
    registry = Registry()
    registry.create("p-ann", "Ann", TOKEN, 0.0)
    registry.forget("p-ann")
    registry.forget("p-ann")  # twice, as every worker may: nothing more
    assert registry.find(TOKEN) is None and not registry.knows("p-ann")
    assert registry.create("p-new", "ann", "another", 1.0).name == "ann"


def test_a_late_forget_leaves_a_name_given_to_another_player_since() -> None:
    # Worker B learns of these in another order than they were done: Ann forgotten,
    # then Bob renamed to Ann (both elsewhere); B applies the rename first.
    registry = Registry()
    registry.create("p-ann", "Ann", TOKEN, 0.0)
    registry.create("p-bob", "Bob", "bob-token", 0.0)
    registry.rename("p-bob", "Ann")
    registry.forget("p-ann")
    with pytest.raises(Refused):
        registry.check_name("ann")  # Bob's now
    assert registry.by_token("bob-token").name == "Ann"
