"""Program: the micrograd-style subset, and a clear ProgramError for everything else."""

import ast
import math
from unittest import mock

import pytest

from engine import Program, ProgramError, Value


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
    with mock.patch("builtins.eval", side_effect=AssertionError("eval called")), \
         mock.patch("builtins.exec", side_effect=AssertionError("exec called")):
        Program.parse("a = 2\nb = a * a + tanh(a)")
        with pytest.raises(ProgramError):
            Program.parse("__import__('os').system('echo hi')")


# Each bad program with the position and the message a learner must see.
BAD_PROGRAMS = [
    ("import os", 1, 1, "Imports aren't needed"),
    ("from micrograd.engine import Value", 1, 1, "Imports aren't needed"),
    ("a = 2\nb = a.__class__", 2, 5, ".__class__ can't be used here"),
    ("a = 2\nb = a.grad", 2, 5, ".grad can't be used here"),
    ("a = 2\nb = a.data.real", 2, 5, ".real can't be used here"),
    ("a = open('x')", 1, 5, "open() isn't available"),
    ("a = eval('1')", 1, 5, "eval() isn't available"),
    ("a = 2\nprint(a)", 2, 1, "print() isn't available"),
    ("__import__('os')", 1, 1, "__import__() isn't available"),
    ("f = lambda x: x", 1, 5, "Lambdas aren't part"),
    ("a = [1][0]", 1, 5, "Indexing with [...]"),
    ("a = 's'", 1, 5, "Strings aren't values"),
    ("a = f'{1}'", 1, 5, "Strings aren't values"),
    ("a = 2\nb = c + 1", 2, 5, "c is used before it has a value"),
    ("a = 2\nb = a\nb += d", 3, 6, "d is used before it has a value"),
    ("x += 1", 1, 1, "x is used before it has a value"),
    ("a = 1e999", 1, 5, "isn't finite"),
    ("a = 1e13", 1, 5, "too large"),
    ("a = 10 ** 400", 1, 5, "Exponents must be between"),
    ("a = 2\nb = a ** 1000", 2, 5, "Exponents must be between"),
    ("a = 2\nb = a ** a", 2, 5, "must be a plain number"),
    ("a = (b := 2)", 1, 6, "The := operator"),
    ("a = 2\nfor i in range(3):\n    a = a + 1", 2, 1, "a for loop can't be used"),
    ("while True:\n    pass", 1, 1, "a while loop can't be used"),
    ("def f():\n    pass", 1, 1, "a function definition can't be used"),
    ("if 1:\n    a = 2", 1, 1, "an if statement can't be used"),
    ("a = 2\na.grad = 3", 2, 1, "Assign one name at a time"),
    ("a, b = 1, 2", 1, 1, "Assign one name at a time"),
    ("a = b = 1", 1, 1, "Assign one name at a time"),
    ("a = 2\na", 2, 1, "doesn't store it"),
    ("x = 2\n\n  y = 3", 3, 3, "unexpected indent"),
    ("a = 2 +", 1, 8, "Python can't read this line"),
    ("a = \x00", 1, 5, "NUL character"),
    ("a = 1j", 1, 5, "Complex numbers"),
    ("a = True", 1, 5, "isn't a number"),
    ("tanh = 2", 1, 1, "is the name of a function"),
    ("__x = 2", 1, 1, "reserved"),
    ("a = Value(2, label=3)", 1, 20, "A label must be"),
    ("a = Value(2, grad=3)", 1, 19, "only accepts a label="),
    ("a = Value(Value(2))", 1, 11, "takes a plain number"),
    ("a = 2\nb = a.tanh(1)", 2, 5, ".tanh() takes no arguments"),
    ("a = 2\nb = tanh(a, a)", 2, 5, "takes exactly one value"),
    ("a = 2\nb = a @ a", 2, 5, "The operator @ isn't supported"),
    ("a = 2\nb = a // 2", 2, 5, "The operator // isn't supported"),
    ("a = 2\nb = a < 3", 2, 5, "Comparisons aren't supported"),
    ("a = [x for x in y]", 1, 5, "Comprehensions aren't supported"),
    ("a = 2\nb = a if a else a", 2, 5, "has no branches"),
    ("a = 2\nb = a.backward()\nc = 1", 2, 5, ".backward() can't be used here"),
    ("a = 2\na.backward()\nb = a", 2, 1, "only on the last line"),
    ("a = " + "(" * 300 + "1" + ")" * 300, 1, 205, "too many nested parentheses"),
    ("a = " + "9" * 5000, 1, 1, "too many digits"),
    ("a = 1\n" + "a = a + a + a + a + a\n" * 600, 502, 5, "more than 2,000 nodes"),
    ("a = 1\n" + "a = a + 1\n" * 2500, 2001, 1, "more than 2,000 lines"),
    ("a = 1\nb = " + "-" * 120 + "a", 2, 105, "nested more than 100 levels"),
    ("a = '" + "x" * 60_000 + "'", 1, 1, "the limit is 50,000"),
    ("", 1, 1, "The program is empty"),
    ("# only a comment\n", 1, 1, "The program is empty"),
    ("a = 2\nb = a\ud800", 2, 6, "isn't valid text"),
]


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
    source = "a = Value(1.5, label='a')\nb = -2\nc = a * b + 3 - a / 2\nc += c ** 2\nd = tanh(c).exp() + sigmoid(a) - relu(b) * log(a) + sin(a) * cos(b)\nd.backward()"
    p = Program.parse(source)
    assert isinstance(p.output, Value) and math.isfinite(p.output.data)
    kinds = {type(n).__name__ for n in ast.walk(ast.parse(source))}
    assert kinds <= {"Module", "Assign", "AugAssign", "Expr", "Name", "Store", "Load", "Constant", "Call",
                     "keyword", "Attribute", "BinOp", "UnaryOp", "Add", "Sub", "Mult", "Div", "Pow", "USub"}
