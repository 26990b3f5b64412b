"""Program: the micrograd-style subset, and a clear ProgramError for everything else."""

import ast
import math
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Program, ProgramError, Value
from engine import program as program_module
from tests.support.hostile_programs import BAD_PROGRAMS


def grads(program):
    program.output.backward()
    return {name: v.grad for name, v in program.variables.items()}


def test_inputs_as_numbers_or_values_and_labels():
    p = Program.parse("a = Value(2.0, label='a')\nb = 3\nc = Value(-4)\nd = (a + b) * c\n")
    assert p.output is p.variables["d"]
    assert [v.label for v in p.nodes] == ["a", "b", "a+b", "c", "d"]
    assert p.output.data == -20.0
    assert grads(p)["c"] == 5.0


def test_label_keyword_names_the_node():
    p = Program.parse("x = Value(1.5, label='weight')\ny = x * 2")
    assert p.variables["x"].label == "weight"


def test_augmented_assignment_makes_a_new_node_with_a_primed_label():
    p = Program.parse("c = 2\nc += c + 1\nc *= 2")
    labels = [v.label for v in p.nodes]
    assert labels == ["c", "c+1", "c'", "c''"]
    assert p.output.data == 10.0
    p.output.backward()
    assert p.nodes[0].grad == 4.0  # c' = c + (c + 1) = 2c + 1, c'' = 2c' → dc''/dc = 4


def test_methods_and_functions_are_the_same():
    a = Program.parse("x = 0.5\ny = x.tanh()\nz = y.exp()").output.data
    b = Program.parse("x = 0.5\ny = tanh(x)\nz = exp(y)").output.data
    assert a == b == math.exp(math.tanh(0.5))


def test_unary_minus_power_division_and_constant_folding():
    p = Program.parse("a = -2 * 3\nb = -a ** 2 / 4 + 2 ** 3")
    assert p.variables["a"].data == -6.0 and p.variables["a"]._op == ""  # folded: an input
    assert p.output.data == -9.0 + 8.0


def test_comments_blank_lines_and_a_final_backward_call():
    p = Program.parse("# the diamond\n\na = 2  # input\nb = a + 1\nc = 3 * a\nd = b * c\nb2 = b * 1\nd.backward()\n")
    assert p.output.label == "d" and p.output.data == 18.0


def test_each_node_remembers_its_source_line():
    p = Program.parse("a = 2\nb = 3\n\nd = a * b + a")
    lines = {v.label: v.line for v in p.nodes}
    assert lines == {"a": 1, "b": 2, "a*b": 4, "d": 4}


def test_unnamed_intermediates_get_short_unique_labels():
    p = Program.parse("x1 = 2\nw1 = -3\nx2 = 0\nw2 = 1\nb = 6.8813735870195432\nn = x1*w1 + x2*w2 + b\no = n.tanh()")
    labels = [v.label for v in p.nodes]
    assert len(labels) == len(set(labels))
    assert "x1*w1" in labels and "x2*w2" in labels and "x1*w1+x2*w2" in labels
    q = Program.parse("a = 1\nb = 2\nlong_name_one = a\nc = (a + b) * (a + b) * (long_name_one * b + a * b)")
    assert len({v.label for v in q.nodes}) == len(q.nodes)
    assert "a+b#2" in [v.label for v in q.nodes]


def test_values_override_inputs_by_name():
    p = Program.parse("a = 2\nb = a + 1\nc = 3 * a\nd = b * c", values={"a": 3})
    p.output.backward()
    assert p.variables["a"].grad == 21.0  # 6a + 3 at a = 3


def test_unknown_override_is_an_error():
    with pytest.raises(ProgramError, match="no input named z"):
        Program.parse("a = 2\nb = a * a", values={"z": 1})


def test_the_source_is_never_evaluated():
    with (
        mock.patch("builtins.eval", side_effect=AssertionError("eval called")),
        mock.patch("builtins.exec", side_effect=AssertionError("exec called")),
    ):
        Program.parse("a = 2\nb = a * a + tanh(a)")
        with pytest.raises(ProgramError):
            Program.parse("__import__('os').system('echo hi')")


@pytest.mark.parametrize("source, line, col, message", BAD_PROGRAMS, ids=[repr(b[0][:24]) for b in BAD_PROGRAMS])
def test_bad_programs_get_a_clear_error_at_the_right_place(source, line, col, message):
    with pytest.raises(ProgramError) as caught:
        Program.parse(source)
    error = caught.value
    assert message in error.message
    assert (error.line, error.col) == (line, col)
    assert error.message.endswith(".") and "\n" not in error.message  # one sentence


def test_the_bad_program_table_is_big_enough():
    assert len(BAD_PROGRAMS) >= 40


def test_every_allowed_construct_is_in_the_whitelist_and_nothing_else_runs():
    # A program using the whole subset parses; its AST contains only whitelisted node types.
    source = (
        "a = Value(1.5, label='a')\n"
        "b = -2\n"
        "c = a * b + 3 - a / 2\n"
        "c += c ** 2\n"
        "d = tanh(c).exp() + sigmoid(a) - relu(b) * log(a) + sin(a) * cos(b)\n"
        "d.backward()"
    )
    p = Program.parse(source)
    assert isinstance(p.output, Value) and math.isfinite(p.output.data)
    kinds = {type(n).__name__ for n in ast.walk(ast.parse(source))}
    assert kinds <= {
        "Module",
        "Assign",
        "AugAssign",
        "Expr",
        "Name",
        "Store",
        "Load",
        "Constant",
        "Call",
        "keyword",
        "Attribute",
        "BinOp",
        "UnaryOp",
        "Add",
        "Sub",
        "Mult",
        "Div",
        "Pow",
        "USub",
    }


# ---------------------------------------------------------------- the operator limit's quick check

# Operators, brackets, line breaks, comments and names: multi-line statements included.
_SOUP = st.lists(
    st.sampled_from(
        [
            "a",
            "1",
            "+",
            "*",
            "**",
            "-",
            "/",
            "(",
            ")",
            "[",
            "]",
            "==",
            "<=",
            ".tanh()",
            " ",
            "\n",
            "# (",
            "# )",
            ",",
            "=",
            "x = ",
        ]
    ),
    max_size=400,
).map("".join)


def _operator_tokens_per_statement(source):
    """The tokenizer's own count (the slow, exact check), or None if it cannot tokenize."""
    import io  # noqa: E401
    import tokenize

    counts, count = [], 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                counts.append(count)
                count = 0
            elif token.type == tokenize.OP and token.string not in program_module._NEUTRAL_TOKENS:
                count += 1
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return max(counts, default=0)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SOUP, min_size=1, max_size=4).map(lambda parts: ("\n".join(parts)) * 3))
def test_quick_operator_check_never_lets_a_long_statement_through(source):
    if program_module._surely_within_operator_limit(source):
        most = _operator_tokens_per_statement(source)
        assert most is None or most <= program_module.MAX_OPERATORS_PER_STATEMENT


def test_quick_operator_check_passes_ordinary_programs_and_defers_long_ones():
    few = "\n".join([f"x{i} = {i}" for i in range(200)] + ["y = " + " + ".join(f"x{i}" for i in range(200))])
    assert program_module._surely_within_operator_limit(few)  # 199 '+' and one '='
    many = "\n".join([f"x{i} = {i}" for i in range(350)] + ["y = " + " + ".join(f"x{i}" for i in range(350))])
    assert not program_module._surely_within_operator_limit(many)
    with pytest.raises(ProgramError, match="more than 300 operators"):
        Program.parse(many)
    short = "\n".join(f"h{i} = relu(x * w{i} + b)  # a (comment" for i in range(1000))
    assert program_module._surely_within_operator_limit(short)
    # Brackets left open carry the statement on to the next line, and the count with it.
    spread = "y = (" + "\n".join(" a *" for _ in range(301)) + " a)"
    assert not program_module._surely_within_operator_limit(spread)
    with pytest.raises(ProgramError, match="more than 300 operators"):
        Program.parse("a = 1\n" + spread)
