"""A seeded monkey clicks around one page.

GRADWALK_MONKEY_ACTIONS (default 1000) random actions — Step forward / Step back (buttons
and arrow keys), Start backward, Reset, preset changes, visit-order moves (Alt+arrows)
and Run order, Restore correct order, input values (typed, Enter, ↑/↓, some invalid),
program edits, checkpoint answers, phone/desktop viewports and a few permalinks (some
malformed) — and after every one of them every node's data-data/data-grad must equal the
CPython engine's frame at the page's position, with no console error (the `page`
fixture).

The page's state is read from its permalink (source, values, order) and from
<html data-pass data-step>. An action that can change the source waits until the page
has settled (<html data-busy> gone, web/boot/busy.js) and reads the link afresh; a step only
moves the position, so it is checked at once against the last link (and every 25
actions the link itself is checked to agree with the position).

The seed is printed; a failure repeats it with the tail of the action log. Replay with
GRADWALK_MONKEY_SEED=<seed> python -m pytest tests/robustness/test_monkey.py -s
"""

import os
import random
import time

from tests.support.links import PRESETS, deflate, random_link
from tests.support.page_state import COMPARE_JS, engine_answer, expected_nodes, link_state, open_settled, settle

SEED = int(os.environ.get("GRADWALK_MONKEY_SEED", "7"))
ACTIONS = int(os.environ.get("GRADWALK_MONKEY_ACTIONS", "1000"))
VALUES = ["3", "-1.5", "0", "-0", "1e-300", "1e12", "-1e12", "2.5", ".5", "1/3", "−2", "abc", "", "1e13", "7"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# (action, weight, slow): slow actions may change the source and wait for the page to settle.
WEIGHTS = [
    ("forward_button", 22, False),
    ("back_button", 10, False),
    ("forward_key", 16, False),
    ("back_key", 10, False),
    ("start_backward", 5, False),
    ("reset", 3, False),
    ("checkpoint", 5, False),
    ("resize", 3, False),
    ("preset", 2.5, True),
    ("value_type", 2, True),
    ("value_arrow", 1, True),
    ("reorder_run", 2.5, True),
    ("run_order", 1, True),
    ("restore_order", 1, True),
    ("program_edit", 1.2, True),
    ("url", 0.25, True),
    ("bad_url", 0.2, True),
]

QUICK_JS = (
    "("
    + COMPARE_JS
    + """)(window.__gwMonkey[`${gwHost().dataset.pass}:${gwHost().dataset.step}`]
  ?? {"(no such position)": [gwHost().dataset.pass, gwHost().dataset.step]})"""
)
QUICK_JS = "() => " + QUICK_JS

POS_JS = (
    "() => [gwHost().dataset.pass, gwHost().dataset.step,"
    " gwRoot().querySelector('#order-rule input:checked')?.value ?? 'push', location.search]"
)


class Monkey:
    def __init__(self, page, site_url, seed):
        self.page = page
        self.site_url = site_url
        self.rng = random.Random(seed)
        self.log = []
        self.state = None
        self.counts = {}
        self.checks = 0
        self.times = {}

    # ------------------------------------------------------------ checking

    def read_link(self):
        settle(self.page, what=f"the page after {self.log[-1] if self.log else 'boot'}")
        self.state = link_state(self.page.evaluate("() => location.search"))
        # Every position's expected nodes go into the page once per source, so that a
        # step is checked with one evaluate.
        rule = self.page.evaluate("() => gwRoot().querySelector('#order-rule input:checked')?.value ?? 'push'")
        answer = engine_answer(self.state, rule=rule)
        table = {"start:-1": expected_nodes(answer, "start", -1)}
        for pass_, frames in (
            ("forward", answer["forward"]),
            ("backward", answer["backward"]),
            ("experiment", (answer.get("experiment") or {}).get("frames", [])),
        ):
            for i in range(len(frames)):
                table[f"{pass_}:{i}"] = expected_nodes(answer, pass_, i)
        self.page.evaluate("(t) => { window.__gwMonkey = t; }", table)

    def quick_check(self):
        wrong = self.page.evaluate(QUICK_JS)
        self.checks += 1
        assert not wrong, f"{self.describe()}:\n" + "\n".join(wrong[:12])

    def check(self, full=False):
        p_, s_, rule, search = self.page.evaluate(POS_JS)
        step = int(s_)
        if full:
            linked = link_state(search)
            assert (linked["pass"], linked["step"]) == (p_, step), (
                f"the link says {linked['pass']} {linked['step']}, the page is at {p_} {step}"
            )
        answer = engine_answer(self.state, rule=rule)
        expected = expected_nodes(answer, p_, step)
        wrong = self.page.evaluate(COMPARE_JS, expected)
        self.checks += 1
        assert not wrong, f"at {p_} {step} of {self.describe()}:\n" + "\n".join(wrong[:12])

    def describe(self):
        s = self.state
        src = f"preset {s['preset']}" if s["preset"] else f"program {s['program']!r:.80}"
        return f"{src}, values {s['values']}, order {s['order']}"

    # ------------------------------------------------------------ actions

    def visible(self, selector):
        loc = self.page.locator(selector)
        return loc.count() > 0 and loc.first.is_visible()

    def blur(self):
        self.page.evaluate("() => gwActive() && gwActive().blur && gwActive().blur()")

    def act(self, name):
        page, rng = self.page, self.rng
        if name in ("forward_button", "back_button", "start_backward", "reset"):
            sel = {
                "forward_button": "#step-forward",
                "back_button": "#step-back",
                "start_backward": "#start-backward",
                "reset": "#reset",
            }[name]
            if not self.visible(sel):
                return "hidden"
            page.click(sel, force=True)  # aria-disabled buttons still answer (with a sentence)
        elif name in ("forward_key", "back_key"):
            self.blur()
            page.keyboard.press("ArrowRight" if name == "forward_key" else "ArrowLeft")
        elif name == "checkpoint":
            cards = page.locator("#checkpoints form")
            if not self.visible("#checkpoints form"):
                return "no question"
            form = cards.first
            if form.locator("input.cp-input").count():
                form.locator("input.cp-input").fill(rng.choice(["1", "-3", "0", "x", "15", ""]))
                form.locator("button[type=submit]").click()
            elif form.locator("input[type=radio]").count():
                radios = form.locator("input[type=radio]")
                radios.nth(rng.randrange(radios.count())).check()
                form.locator("button[type=submit]").click()
            else:
                form.get_by_role("button", name="Show answer").click()
        elif name == "resize":
            page.set_viewport_size(rng.choice([PHONE, DESKTOP]))
        elif name == "preset":
            if not self.visible("#preset"):
                return "hidden"
            page.select_option("#preset", rng.choice(PRESETS))
        elif name in ("value_type", "value_arrow"):
            fields = page.locator(".value-input")
            if not self.visible(".value-input"):
                return "no inputs"
            field = fields.nth(rng.randrange(fields.count()))
            if name == "value_type":
                text = rng.choice(VALUES)
                field.fill(text)
                field.press("Enter")
                self.blur()  # an invalid value is put back on blur
                return f"{text!r}"
            field.focus()
            field.press(rng.choice(["ArrowUp", "ArrowDown", "Shift+ArrowUp", "Alt+ArrowDown"]))
            self.blur()
        elif name in ("reorder_run", "run_order", "restore_order"):
            if not self.visible("#run-order"):
                return "hidden"
            if name == "restore_order":
                page.click("#restore-order")
                return None
            if name == "reorder_run":
                items = page.locator("#visit-order li")
                for _ in range(rng.randint(1, 3)):
                    items.nth(rng.randrange(items.count())).focus()
                    page.keyboard.press(rng.choice(["Alt+ArrowUp", "Alt+ArrowDown"]))
            page.click("#run-order")
        elif name == "program_edit":
            if not self.visible("#edit-program"):
                return "hidden"
            text = mutate_program(rng, self.page.inner_text("#program") if rng.random() < 0.5 else rng.choice(PROGRAMS))
            if page.get_attribute("#edit-program", "aria-expanded") != "true":
                page.click("#edit-program")
            page.fill("#program-editor", text)
            page.click("#editor button:text-is('Done')")
            return f"{text!r:.60}"
        elif name in ("url", "bad_url"):
            if name == "url":
                query = self.good_link()
            else:
                query = random_link(rng)
            page.goto("about:blank")
            open_settled(page, self.site_url + "index.html?" + query)
            return query[:100]
        return None

    def good_link(self):
        rng = self.rng
        preset = rng.choice(PRESETS)
        answer = engine_answer({"preset": preset, "program": None, "values": None, "order": None})
        parts = [f"gw=1&preset={preset}"]
        labels = [n["label"] for n in answer["nodes"]]
        if rng.random() < 0.5:
            ins = [answer["nodes"][i]["label"] for i in answer["inputs"]]
            parts.append(
                "v="
                + ",".join(
                    f"{x}:{rng.choice(['2', '-1', '0.5', '-0', '1e-9'])}"
                    for x in rng.sample(ins, rng.randint(1, len(ins)))
                )
            )
        pass_ = rng.choice(["start", "forward", "backward", "experiment"])
        if pass_ == "experiment":
            order = labels[:]
            rng.shuffle(order)
            parts.append("order=" + ",".join(order))
            n = len(labels) + 1
        else:
            n = len(answer["forward"]) if pass_ == "forward" else len(answer["backward"])
        if pass_ != "start":
            parts.append(f"pass={pass_}&step={rng.randrange(n)}")
        if rng.random() < 0.3:
            parts.append("cp=0")
        if rng.random() < 0.2:
            parts = [f"gw=1&prog={deflate(answer['program'])}"] + parts[2:]
            parts = [p for p in parts if not p.startswith("order=") and not p.startswith("pass=experiment")]
        return "&".join(parts)

    # ------------------------------------------------------------ the run

    def run(self, actions):
        names = [w[0] for w in WEIGHTS]
        weights = [w[1] for w in WEIGHTS]
        slow = {w[0]: w[2] for w in WEIGHTS}
        open_settled(self.page, self.site_url + "index.html")
        self.log.append("open index.html")
        self.read_link()
        self.check(full=True)
        for i in range(actions):
            name = self.rng.choices(names, weights)[0]
            self.counts[name] = self.counts.get(name, 0) + 1
            self.log.append(f"{i}: {name}")
            t0 = time.monotonic()
            note = self.act(name)
            if note:
                self.log[-1] += f" ({note})"
            if slow[name]:
                self.read_link()
                self.check(full=True)
            elif i % 25 == 24:
                settle(self.page, what=f"the page after {self.log[-1]}")
                self.check(full=True)
            else:
                self.quick_check()
            self.times[name] = self.times.get(name, 0.0) + time.monotonic() - t0
        settle(self.page)
        self.check(full=True)


PROGRAMS = [
    "a = 2\nb = a * a",
    "x = 1.5\ny = tanh(x)\nz = y * x + exp(x)",
    "a = 2\nb = -3\nc = a * b\nd = a + b\ne = c + d",
    "x = 0\ny = log(x)\nz = y * 0",
    "a = 3\nb = a ** 2 / (a - 3)",
]


def mutate_program(rng, text):
    alphabet = list("abcxyz0123456789+-*/()=. \n") + ["tanh(", "**", "relu", "1e308", "import", "'", "\t", "é"]
    chars = list(text)
    for _ in range(rng.randint(0, 3)):
        op = rng.random()
        at = rng.randrange(len(chars) + 1)
        if op < 0.4 and chars:
            del chars[min(at, len(chars) - 1)]
        elif op < 0.8:
            chars.insert(at, rng.choice(alphabet))
        elif chars:
            chars[min(at, len(chars) - 1)] = rng.choice(alphabet)
    return "".join(chars)


def test_monkey(page, site_url):
    print(f"\nGRADWALK_MONKEY_SEED={SEED} ({ACTIONS} actions)")
    monkey = Monkey(page, site_url, SEED)
    start = time.monotonic()
    try:
        monkey.run(ACTIONS)
    except Exception as e:  # noqa: BLE001 - every failure gets the seed and the log
        tail = "\n".join(monkey.log[-15:])
        raise AssertionError(
            f"GRADWALK_MONKEY_SEED={SEED} failed after {len(monkey.log) - 1} actions: {e}\n"
            f"last actions:\n{tail}\n"
            f"replay: GRADWALK_MONKEY_SEED={SEED} python -m pytest tests/robustness/test_monkey.py -s"
        ) from e
    took = time.monotonic() - start
    counts = ", ".join(f"{k} {v}" for k, v in sorted(monkey.counts.items()))
    print("seconds per action:", {k: round(v / monkey.counts[k], 3) for k, v in monkey.times.items()})
    print(f"{ACTIONS} actions, {monkey.checks} checks against the engine in {took:.0f} s: {counts}")
