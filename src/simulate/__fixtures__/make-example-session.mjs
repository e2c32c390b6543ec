// Writes examples/session.jsonl: a made-up but realistic coding-agent session (Anthropic Messages
// shape, one JSON value per line, the first line `{"system": ...}`) over a small invented Python
// project, "shopcart". Every tool result is computed from a simulated working tree, so file reads
// after an edit show the edit. Deterministic (seeded); re-run with
//   node src/simulate/__fixtures__/make-example-session.mjs > examples/session.jsonl
// Nothing here is copied from real transcripts.

let seed = 20261130;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (low, high) => low + Math.floor(random() * (high - low + 1));

// ---------------------------------------------------------------------------------------------
// The invented project's files.

const nouns = ['cart', 'line', 'item', 'order', 'price', 'code', 'sku', 'customer', 'session', 'total', 'rate', 'region'];
const verbs = ['load', 'validate', 'compute', 'resolve', 'apply', 'format', 'merge', 'split', 'normalize', 'record'];

function body(params) {
  const first = params[0] ?? 'value';
  const patterns = [
    () => [
      `    if ${first} is None:`,
      `        raise ValueError("${first} is required")`,
      `    result = _cache.get(${first})`,
      '    if result is not None:',
      '        return result',
      `    result = _build(${params.join(', ')})`,
      `    _cache[${first}] = result`,
      '    return result',
    ],
    () => [
      '    total = Decimal("0")',
      `    for entry in ${first}:`,
      '        if entry.quantity <= 0:',
      '            continue',
      '        total += entry.unit_price * entry.quantity',
      '    return total.quantize(CENT, rounding=ROUND_HALF_UP)',
    ],
    () => [
      '    try:',
      `        record = REGISTRY[${first}]`,
      '    except KeyError as error:',
      `        raise LookupError(f"unknown ${first}: {${first}!r}") from error`,
      `    logger.debug("resolved %s -> %s", ${first}, record)`,
      '    return record',
    ],
    () => [
      `    items = sorted(${first}, key=lambda entry: (entry.sku, entry.added_at))`,
      '    merged: dict[str, int] = {}',
      '    for entry in items:',
      '        merged[entry.sku] = merged.get(entry.sku, 0) + entry.quantity',
      '    return [LineItem(sku=sku, quantity=quantity) for sku, quantity in merged.items()]',
    ],
    () => [
      `    text = str(${first}).strip()`,
      '    if not text:',
      '        return ""',
      '    parts = [part for part in text.replace("_", "-").split("-") if part]',
      '    return "-".join(part.upper() for part in parts)',
    ],
  ];
  return pick(patterns)();
}

function generatedFunctions(count, prefix) {
  const lines = [];
  for (let index = 0; index < count; index++) {
    const name = `${pick(verbs)}_${pick(nouns)}${index === 0 ? '' : `_${pick(nouns)}`}`;
    const params = [pick(nouns), pick(nouns)].filter((value, position, all) => all.indexOf(value) === position);
    lines.push(
      '',
      '',
      `def ${prefix}${name}(${params.map((param) => `${param}: Any`).join(', ')}) -> Any:`,
      `    """${name.replace(/_/g, ' ')[0].toUpperCase()}${name.replace(/_/g, ' ').slice(1)} for the ${params.join(' and ')}."""`,
      ...body(params),
    );
  }
  return lines;
}

const header = (doc, imports) => [`"""${doc}"""`, '', 'from __future__ import annotations', '', ...imports, ''];

const files = new Map();

files.set(
  'README.md',
  [
    '# shopcart',
    '',
    'Cart, pricing and checkout service for the Northwind web shop. Python 3.11, no framework in the core;',
    'the HTTP layer in `shopcart/api.py` is a thin Starlette app.',
    '',
    '## Layout',
    '',
    '- `shopcart/cart.py` — the `Cart` aggregate: lines, quantities, merge of guest carts.',
    '- `shopcart/pricing.py` — subtotal, discounts, tax and the final total (`price_cart`).',
    '- `shopcart/discounts.py` — discount codes (`DiscountCode`, `load_codes`, `apply_codes`).',
    '- `shopcart/tax.py` — tax rates per region.',
    '- `shopcart/inventory.py` — stock checks against `data/catalog.json`.',
    '- `shopcart/storage.py` — session storage (Redis in production, a dict in tests).',
    '- `shopcart/api.py` — HTTP endpoints: `/cart`, `/cart/lines`, `/checkout`.',
    '- `shopcart/cli.py` — `python -m shopcart ...` admin commands.',
    '',
    '## Development',
    '',
    '```',
    'python -m venv .venv && . .venv/bin/activate',
    'pip install -e ".[dev]"',
    'python -m pytest -q',
    'ruff check . && mypy shopcart',
    '```',
    '',
    '## Rules',
    '',
    '- Money is `Decimal`, rounded half-up to cents only at the end of `price_cart`.',
    '- Public functions keep their signatures; `Cart.total()` is used by three other services.',
    '',
  ].join('\n'),
);

files.set(
  'pyproject.toml',
  [
    '[project]',
    'name = "shopcart"',
    'version = "2.7.1"',
    'requires-python = ">=3.11"',
    'dependencies = ["starlette>=0.37", "redis>=5.0", "pydantic>=2.6"]',
    '',
    '[project.optional-dependencies]',
    'dev = ["pytest>=8", "pytest-asyncio>=0.23", "httpx>=0.27", "ruff>=0.4", "mypy>=1.10"]',
    '',
    '[tool.ruff]',
    'line-length = 100',
    'select = ["E", "F", "I", "B", "UP"]',
    '',
    '[tool.mypy]',
    'strict = true',
    '',
  ].join('\n'),
);

const pricingCore = [
  'CENT = Decimal("0.01")',
  '',
  '',
  'def price_cart(cart: Cart, codes: list[DiscountCode], region: str) -> PriceBreakdown:',
  '    """Price a cart: subtotal, tax, discounts, total. Rounds only at the end."""',
  '    subtotal = cart_subtotal(cart)',
  '    tax = compute_tax(subtotal, region)',
  '    discount = apply_codes(subtotal, codes)',
  '    total = subtotal + tax - discount',
  '    return PriceBreakdown(',
  '        subtotal=subtotal.quantize(CENT, rounding=ROUND_HALF_UP),',
  '        discount=discount.quantize(CENT, rounding=ROUND_HALF_UP),',
  '        tax=tax.quantize(CENT, rounding=ROUND_HALF_UP),',
  '        total=total.quantize(CENT, rounding=ROUND_HALF_UP),',
  '    )',
];

files.set(
  'shopcart/pricing.py',
  [
    ...header('Pricing: subtotal, discounts, tax and the total of a cart.', [
      'import logging',
      'from dataclasses import dataclass',
      'from decimal import ROUND_HALF_UP, Decimal',
      'from typing import Any',
      '',
      'from .cart import Cart',
      'from .discounts import DiscountCode, apply_codes',
      'from .tax import compute_tax',
    ]),
    'logger = logging.getLogger(__name__)',
    '_cache: dict[Any, Any] = {}',
    'REGISTRY: dict[str, Any] = {}',
    '',
    '',
    '@dataclass(frozen=True)',
    'class PriceBreakdown:',
    '    subtotal: Decimal',
    '    discount: Decimal',
    '    tax: Decimal',
    '    total: Decimal',
    '',
    '',
    ...pricingCore,
    '',
    '',
    'def cart_subtotal(cart: Cart) -> Decimal:',
    '    """Sum of unit price × quantity over the cart lines."""',
    '    return sum((line.unit_price * line.quantity for line in cart.lines), Decimal("0"))',
    ...generatedFunctions(14, ''),
    '',
  ].join('\n'),
);

const discountsCore = [
  '@dataclass(frozen=True)',
  'class DiscountCode:',
  '    code: str',
  '    kind: str  # "percent" or "fixed"',
  '    amount: Decimal',
  '    expires: date | None = None',
  '    stackable: bool = False',
  '',
  '',
  'def load_codes(path: Path) -> dict[str, DiscountCode]:',
  '    """Read the active codes from a JSON file."""',
  '    raw = json.loads(path.read_text())',
  '    return {',
  '        entry["code"]: DiscountCode(',
  '            code=entry["code"],',
  '            kind=entry["kind"],',
  '            amount=Decimal(str(entry["amount"])),',
  '            expires=date.fromisoformat(entry["expires"]) if entry.get("expires") else None,',
  '            stackable=entry.get("stackable", False),',
  '        )',
  '        for entry in raw["codes"]',
  '    }',
  '',
  '',
  'def apply_codes(subtotal: Decimal, codes: list[DiscountCode]) -> Decimal:',
  '    """The total discount of the codes on a subtotal."""',
  '    discount = Decimal("0")',
  '    for code in codes:',
  '        if code.kind == "percent":',
  '            discount += subtotal * code.amount / 100',
  '        else:',
  '            discount += code.amount',
  '    return discount',
];

files.set(
  'shopcart/discounts.py',
  [
    ...header('Discount codes: loading, validation and application.', [
      'import json',
      'import logging',
      'from dataclasses import dataclass',
      'from datetime import date',
      'from pathlib import Path',
      'from typing import Any',
    ]),
    'logger = logging.getLogger(__name__)',
    '_cache: dict[Any, Any] = {}',
    'REGISTRY: dict[str, Any] = {}',
    '',
    '',
    ...discountsCore,
    ...generatedFunctions(9, ''),
    '',
  ].join('\n'),
);

const moduleSpecs = [
  ['shopcart/cart.py', 'The Cart aggregate: lines, quantities and merging guest carts.', 24],
  ['shopcart/tax.py', 'Tax rates per region and tax computation.', 9],
  ['shopcart/models.py', 'Pydantic models shared by the API and the storage layer.', 18],
  ['shopcart/inventory.py', 'Stock checks against the catalog.', 15],
  ['shopcart/storage.py', 'Session storage: Redis in production, a dict in tests.', 16],
  ['shopcart/api.py', 'HTTP endpoints: /cart, /cart/lines and /checkout.', 30],
  ['shopcart/cli.py', 'Admin commands: python -m shopcart ...', 10],
];
for (const [path, doc, count] of moduleSpecs) {
  const lines = [
    ...header(doc, [
      'import logging',
      'from decimal import ROUND_HALF_UP, Decimal',
      'from typing import Any',
      '',
      'from .models import LineItem',
    ]),
    'logger = logging.getLogger(__name__)',
    'CENT = Decimal("0.01")',
    '_cache: dict[Any, Any] = {}',
    'REGISTRY: dict[str, Any] = {}',
  ];
  if (path === 'shopcart/tax.py') {
    lines.push(
      '',
      '',
      'RATES = {"DE": Decimal("0.19"), "FR": Decimal("0.20"), "NL": Decimal("0.21"), "US-CA": Decimal("0.0725")}',
      '',
      '',
      'def compute_tax(amount: Decimal, region: str) -> Decimal:',
      '    """Tax on an amount for a region."""',
      '    return amount * RATES[region]',
    );
  }
  if (path === 'shopcart/cart.py') {
    lines.push(
      '',
      '',
      'def has_stock(sku: str, quantity: int) -> bool:',
      '    """True when the warehouse holds at least `quantity` of the SKU."""',
      '    return STOCK.get(sku, 0) >= quantity',
    );
  }
  if (path === 'shopcart/api.py') {
    lines.push(
      '',
      '',
      'async def add_code(request: Request) -> JSONResponse:',
      '    """POST /cart/codes: attach a discount code to the session cart."""',
      '    payload = await request.json()',
      '    session = await load_session(request.cookies["sid"])',
      '    try:',
      '        code = CODES[payload["code"]]',
      '    except KeyError:',
      '        return JSONResponse({"error": "unknown code"}, status_code=400)',
      '    session.setdefault("codes", []).append(code.code)',
      '    await save_session(session)',
      '    return JSONResponse({"codes": session["codes"]})',
    );
    lines.push(

      '',
      '',
      'async def checkout(request: Request) -> JSONResponse:',
      '    """POST /checkout: price the session cart and place the order."""',
      '    session = await load_session(request.cookies["sid"])',
      '    cart = Cart.from_dict(session["cart"])',
      '    codes = [CODES[code] for code in session.get("codes", [])]',
      '    breakdown = price_cart(cart, codes, session["region"])',
      '    order = await place_order(cart, breakdown, currency=session["currency"])',
      '    return JSONResponse({"order": order.id, "total": str(breakdown.total)})',
    );
  }
  if (path === 'shopcart/cli.py') {
    lines.push(
      '',
      '',
      'def main(argv: list[str] | None = None) -> int:',
      '    parser = argparse.ArgumentParser(prog="shopcart")',
      '    commands = parser.add_subparsers(dest="command", required=True)',
      '    commands.add_parser("reindex", help="rebuild the catalog index")',
      '    arguments = parser.parse_args(argv)',
      '    if arguments.command == "reindex":',
      '        return reindex()',
      '    return 2',
    );
  }
  lines.push(...generatedFunctions(count, ''), '');
  files.set(path, lines.join('\n'));
}

function testModule(name, tests) {
  const lines = header(`Tests of ${name}.`, [
    'from decimal import Decimal',
    '',
    'import pytest',
    '',
    `from shopcart.${name} import *  # noqa: F403`,
  ]);
  for (const test of tests) {
    lines.push(
      '',
      '',
      `def ${test}() -> None:`,
      `    cart = make_cart([("SKU-${int(1000, 9999)}", ${int(1, 5)}, "${int(3, 90)}.${int(10, 99)}")])`,
      `    result = ${pick(verbs)}_${pick(nouns)}(cart, region="${pick(['DE', 'FR', 'NL'])}")`,
      `    assert result == Decimal("${int(1, 400)}.${int(10, 99)}")`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const discountTests = [
  'test_percent_code_reduces_subtotal',
  'test_fixed_code_reduces_subtotal',
  'test_tax_is_computed_after_discount',
  'test_two_stackable_codes',
  'test_non_stackable_codes_use_the_best_one',
  'test_expired_code_is_rejected',
  'test_discount_never_exceeds_subtotal',
  'test_unknown_code_raises_lookup_error',
];
files.set('tests/test_discounts.py', testModule('discounts', discountTests));
files.set(
  'tests/test_inventory.py',
  testModule(
    'inventory',
    Array.from({ length: 14 }, (_, index) => `test_inventory_case_${index + 1}`),
  ),
);

// data/catalog.json: big on purpose; the agent reads it whole once, as agents do.
const categories = ['kitchen', 'garden', 'office', 'outdoor', 'bath', 'lighting', 'storage', 'textiles'];
const adjectives = ['compact', 'classic', 'large', 'nordic', 'bamboo', 'steel', 'linen', 'matte', 'oak', 'ceramic'];
const things = ['kettle', 'lamp', 'planter', 'shelf', 'towel', 'mug', 'stool', 'basket', 'rug', 'tray', 'bench'];
const catalog = {
  version: 41,
  generated: '2026-11-28T03:00:00Z',
  items: Array.from({ length: 520 }, (_, index) => ({
    sku: `SKU-${1000 + index * 7}`,
    name: `${pick(adjectives)} ${pick(things)}`,
    category: pick(categories),
    price: `${int(3, 240)}.${int(10, 99)}`,
    stock: int(0, 400),
    tags: [pick(adjectives), pick(categories)],
  })),
};
files.set('data/catalog.json', `${JSON.stringify(catalog, null, 2)}\n`);

files.set(
  'data/codes.json',
  `${JSON.stringify(
    {
      codes: [
        { code: 'WELCOME10', kind: 'percent', amount: 10, expires: '2027-01-31', stackable: false },
        { code: 'SPRING5', kind: 'fixed', amount: 5, expires: '2026-05-31', stackable: true },
        { code: 'FREESHIP', kind: 'fixed', amount: 4.95, stackable: true },
        { code: 'vip20', kind: 'percent', amount: 20, expires: '2027-06-30', stackable: false },
      ],
    },
    null,
    2,
  )}\n`,
);

// logs/checkout.log: a day of a staging log with the 500s the user asks about.
const logLines = [];
for (let index = 0; index < 900; index++) {
  const minute = String(Math.floor(index / 15) % 60).padStart(2, '0');
  const hour = String(8 + Math.floor(index / 900 * 10)).padStart(2, '0');
  const time = `2026-11-29T${hour}:${minute}:${String(index % 60).padStart(2, '0')}.${int(100, 999)}Z`;
  const sid = `s${int(100000, 999999)}`;
  if (index % 97 === 41) {
    logLines.push(
      `${time} ERROR shopcart.api checkout failed sid=${sid}`,
      'Traceback (most recent call last):',
      '  File "/srv/shopcart/shopcart/api.py", line 212, in checkout',
      '    order = await place_order(cart, breakdown, currency=session["currency"])',
      "KeyError: 'currency'",
    );
  } else {
    logLines.push(
      `${time} INFO shopcart.api ${pick(['GET /cart', 'POST /cart/lines', 'POST /checkout', 'GET /cart'])} sid=${sid} status=${pick([200, 200, 200, 201, 304])} duration_ms=${int(4, 180)}`,
    );
  }
}
files.set('logs/checkout.log', `${logLines.join('\n')}\n`);

// ---------------------------------------------------------------------------------------------
// The session.

const system = [
  'You are a careful software engineering agent working in a git repository at /work/shopcart.',
  'You have four tools: read_file (read a file, optionally a line range), bash (run a shell command in',
  'the repository; output is returned with the exit code), edit_file (replace an exact string in a',
  'file; the old string must occur exactly once) and write_file (create or overwrite a file).',
  '',
  'Rules:',
  '- Read the code before you change it. Prefer small, targeted edits over rewriting files.',
  '- Run the tests after every change and fix what you broke before moving on.',
  '- Keep public function signatures stable unless the user asks otherwise.',
  '- Never commit, push or delete branches; the user reviews and commits.',
  '- When you are done, say what you changed and how you verified it, in a few sentences.',
].join('\n');

const lines = [{ system }];
let toolCounter = 0;
let pendingResults = [];

function user(text) {
  lines.push({ role: 'user', content: pendingResults.length > 0 ? [...pendingResults, { type: 'text', text }] : text });
  pendingResults = [];
}

function flushResults() {
  if (pendingResults.length > 0) lines.push({ role: 'user', content: pendingResults });
  pendingResults = [];
}

function numbered(text, offset = 1, limit = Number.POSITIVE_INFINITY) {
  return text
    .split('\n')
    .slice(offset - 1, offset - 1 + limit)
    .map((line, index) => `${String(offset + index).padStart(6)}\t${line}`)
    .join('\n');
}

function run(name, input) {
  switch (name) {
    case 'read_file': {
      const text = files.get(input.path);
      if (text === undefined) return { content: `Error: file not found: ${input.path}`, is_error: true };
      return { content: numbered(text, input.offset ?? 1, input.limit) };
    }
    case 'write_file':
      files.set(input.path, input.content);
      return { content: `Wrote ${input.content.split('\n').length} lines to ${input.path}` };
    case 'edit_file': {
      const text = files.get(input.path);
      if (text === undefined) return { content: `Error: file not found: ${input.path}`, is_error: true };
      const count = text.split(input.old_string).length - 1;
      if (count !== 1) {
        if (process.env.DEBUG_SESSION) process.stderr.write(`edit failed: ${input.path}: ${input.old_string.slice(0, 60)}\n`);
        return {
          content: `Error: old_string ${count === 0 ? 'not found' : `found ${count} times`} in ${input.path}; no change made`,
          is_error: true,
        };
      }
      files.set(input.path, text.replace(input.old_string, input.new_string));
      return { content: `Edited ${input.path}: replaced 1 occurrence` };
    }
    default:
      throw new Error(`no simulated tool ${name}`);
  }
}

/** One assistant turn: some text and tool calls; `outputs` gives bash results by command. */
function turn(text, calls) {
  flushResults();
  const content = [];
  if (text) content.push({ type: 'text', text });
  const results = [];
  for (const call of calls) {
    toolCounter++;
    const id = `toolu_${String(toolCounter).padStart(3, '0')}_${Math.floor(random() * 1e8).toString(36)}`;
    const { name, output, ...input } = call;
    content.push({ type: 'tool_use', id, name, input });
    const result = name === 'bash' ? output : run(name, input);
    results.push({ type: 'tool_result', tool_use_id: id, ...result });
  }
  lines.push({ role: 'assistant', content });
  pendingResults = results;
}

const bash = (command, stdout, exitCode = 0) => ({
  name: 'bash',
  command,
  output: {
    content: `${stdout}${stdout.endsWith('\n') ? '' : '\n'}Exit code: ${exitCode}`,
    ...(exitCode === 0 ? {} : { is_error: true }),
  },
});
const read = (path, extra = {}) => ({ name: 'read_file', path, ...extra });
const edit = (path, old_string, new_string) => ({ name: 'edit_file', path, old_string, new_string });
const write = (path, content) => ({ name: 'write_file', path, content });

function pytestRun(passed, failures, verbose = false) {
  const out = ['============================= test session starts ==============================',
    'platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0',
    'rootdir: /work/shopcart',
    'configfile: pyproject.toml',
    `collected ${passed + failures.length} items`,
    ''];
  if (verbose) {
    for (let index = 0; index < passed; index++) {
      out.push(`tests/test_${pick(['cart', 'pricing', 'tax', 'api', 'storage', 'models'])}.py::test_${pick(verbs)}_${pick(nouns)}_${index} PASSED`);
    }
  } else {
    out.push(`tests/test_cart.py ........................                                [ 40%]`);
    out.push(`tests/test_discounts.py ${'.'.repeat(Math.max(0, 8 - failures.length))}${'F'.repeat(failures.length)}   [ 55%]`);
    out.push('tests/test_pricing.py ..............                                     [ 80%]');
    out.push('tests/test_tax.py ...........                                            [100%]');
  }
  if (failures.length > 0) {
    out.push('', '=================================== FAILURES ===================================');
    for (const failure of failures) {
      out.push(`___________________________ ${failure.test} ___________________________`, '');
      out.push(...failure.trace.split('\n'), '');
    }
    out.push('=========================== short test summary info ============================');
    for (const failure of failures) out.push(`FAILED tests/${failure.file}::${failure.test} - ${failure.summary}`);
  }
  out.push(
    failures.length > 0
      ? `========================= ${failures.length} failed, ${passed} passed in 1.84s =========================`
      : `============================== ${passed} passed in 1.71s ==============================`,
  );
  return bash(verbose ? 'python -m pytest -vv' : 'python -m pytest -q', out.join('\n'), failures.length > 0 ? 1 : 0);
}

const taxAfterDiscountFailure = {
  file: 'test_discounts.py',
  test: 'test_tax_is_computed_after_discount',
  summary: "AssertionError: assert Decimal('107.10') == Decimal('96.39')",
  trace: [
    '    def test_tax_is_computed_after_discount() -> None:',
    '        cart = make_cart([("SKU-1007", 2, "45.00")])',
    '        breakdown = price_cart(cart, [CODES["WELCOME10"]], region="DE")',
    '>       assert breakdown.total == Decimal("96.39")',
    "E       AssertionError: assert Decimal('107.10') == Decimal('96.39')",
    "E        +  where Decimal('107.10') = PriceBreakdown(subtotal=Decimal('90.00'), discount=Decimal('9.00'), tax=Decimal('17.10'), total=Decimal('107.10')).total",
    '',
    'tests/test_discounts.py:31: AssertionError',
  ].join('\n'),
};
const stackFailure = {
  file: 'test_discounts.py',
  test: 'test_non_stackable_codes_use_the_best_one',
  summary: "AssertionError: assert Decimal('30.00') == Decimal('20.00')",
  trace: [
    '    def test_non_stackable_codes_use_the_best_one() -> None:',
    '        cart = make_cart([("SKU-1014", 1, "100.00")])',
    '        discount = apply_codes(Decimal("100.00"), [CODES["WELCOME10"], CODES["vip20"]])',
    '>       assert discount == Decimal("20.00")',
    "E       AssertionError: assert Decimal('30.00') == Decimal('20.00')",
    '',
    'tests/test_discounts.py:52: AssertionError',
  ].join('\n'),
};
const capFailure = {
  file: 'test_discounts.py',
  test: 'test_discount_never_exceeds_subtotal',
  summary: "AssertionError: assert Decimal('-0.95') == Decimal('0.00')",
  trace: [
    '    def test_discount_never_exceeds_subtotal() -> None:',
    '        cart = make_cart([("SKU-1021", 1, "4.00")])',
    '        breakdown = price_cart(cart, [CODES["SPRING5"]], region="NL")',
    '>       assert breakdown.total == Decimal("0.00")',
    "E       AssertionError: assert Decimal('-0.95') == Decimal('0.00')",
    '',
    'tests/test_discounts.py:61: AssertionError',
  ].join('\n'),
};
const expiredFailure = {
  file: 'test_discounts.py',
  test: 'test_expired_code_is_rejected',
  summary: 'Failed: DID NOT RAISE <class \'shopcart.discounts.ExpiredCodeError\'>',
  trace: [
    '    def test_expired_code_is_rejected() -> None:',
    '>       with pytest.raises(ExpiredCodeError):',
    "E       Failed: DID NOT RAISE <class 'shopcart.discounts.ExpiredCodeError'>",
    '',
    'tests/test_discounts.py:44: Failed',
  ].join('\n'),
};

function codeTableTests() {
  const lines = ['', '', '@pytest.mark.parametrize(', '    ("subtotal", "codes", "expected"),', '    ['];
  for (let index = 0; index < 36; index++) {
    const subtotal = `${20 + index * 5}.00`;
    const codes = index % 2 === 0 ? '["WELCOME10"]' : index % 3 === 0 ? '["SPRING5", "vip20"]' : '["vip20", "WELCOME10"]';
    lines.push(`        (Decimal("${subtotal}"), ${codes}, Decimal("${(Number.parseFloat(subtotal) * 0.1).toFixed(2)}")),`);
  }
  lines.push(
    '    ],',
    ')',
    'def test_discount_table(subtotal: Decimal, codes: list[str], expected: Decimal) -> None:',
    '    selected = select_codes(subtotal, [CODES[code] for code in codes], today=date(2026, 1, 1))',
    '    assert sum(_value(subtotal, code) for code in selected) == expected',
  );
  return lines;
}

// Phase 1: orientation.
user(
  [
    'Checkout totals are wrong when a discount code is used: we charge tax on the undiscounted subtotal.',
    'tests/test_discounts.py has failing tests that describe the intended behaviour (tax after discount,',
    'non-stackable codes take the best one, the discount never exceeds the subtotal, expired codes are',
    'rejected). Please fix shopcart so the whole suite passes. Do not change the signature of',
    'price_cart or Cart.total(): three other services call them.',
  ].join('\n'),
);
turn("I'll start by looking at the repository layout and the current state of the working tree.", [
  bash(
    'git status && ls -la',
    [
      'On branch main',
      "Your branch is up to date with 'origin/main'.",
      '',
      'nothing to commit, working tree clean',
      'total 56',
      'drwxr-xr-x 8 dev dev 4096 Nov 29 09:12 .',
      'drwxr-xr-x 5 dev dev 4096 Nov 29 09:10 ..',
      'drwxr-xr-x 8 dev dev 4096 Nov 29 09:12 .git',
      '-rw-r--r-- 1 dev dev  312 Nov 29 09:10 .gitignore',
      '-rw-r--r-- 1 dev dev 1421 Nov 29 09:10 README.md',
      'drwxr-xr-x 2 dev dev 4096 Nov 29 09:10 data',
      'drwxr-xr-x 2 dev dev 4096 Nov 29 09:10 logs',
      '-rw-r--r-- 1 dev dev  487 Nov 29 09:10 pyproject.toml',
      'drwxr-xr-x 2 dev dev 4096 Nov 29 09:10 shopcart',
      'drwxr-xr-x 2 dev dev 4096 Nov 29 09:10 tests',
    ].join('\n'),
  ),
]);
turn('', [bash("find . -name '*.py' -not -path './.venv/*' | sort", [...files.keys()].filter((path) => path.endsWith('.py')).map((path) => `./${path}`).concat(['./shopcart/__init__.py', './shopcart/__main__.py', './tests/conftest.py', './tests/test_cart.py', './tests/test_pricing.py', './tests/test_tax.py']).sort().join('\n'))]);
turn('Let me read the README and the project configuration first.', [read('README.md'), read('pyproject.toml')]);
turn('Now the failing tests, to see exactly what is expected.', [
  pytestRun(54, [taxAfterDiscountFailure, stackFailure, capFailure, expiredFailure]),
]);
turn('Four failures, all in test_discounts.py. Reading the test file.', [read('tests/test_discounts.py')]);
turn('The pricing pipeline is in pricing.py; reading it.', [read('shopcart/pricing.py')]);
turn(
  'price_cart computes the tax on the full subtotal before subtracting the discount, which explains the first failure. Let me read discounts.py for the stacking and capping rules.',
  [read('shopcart/discounts.py')],
);
turn('I also want to see how Cart exposes its lines and total().', [read('shopcart/cart.py')]);
turn('', [read('shopcart/tax.py')]);
turn('Checking every caller of apply_codes and compute_tax before changing their behaviour.', [
  bash(
    'grep -rn "apply_codes\\|compute_tax" shopcart tests',
    [
      'shopcart/pricing.py:9:from .discounts import DiscountCode, apply_codes',
      'shopcart/pricing.py:10:from .tax import compute_tax',
      'shopcart/pricing.py:36:    tax = compute_tax(subtotal, region)',
      'shopcart/pricing.py:37:    discount = apply_codes(subtotal, codes)',
      'shopcart/discounts.py:46:def apply_codes(subtotal: Decimal, codes: list[DiscountCode]) -> Decimal:',
      'shopcart/api.py:14:from .pricing import price_cart',
      'tests/test_discounts.py:52:    discount = apply_codes(Decimal("100.00"), [CODES["WELCOME10"], CODES["vip20"]])',
      'tests/test_pricing.py:18:    assert compute_tax(Decimal("10.00"), "DE") == Decimal("1.90")',
    ].join('\n'),
  ),
]);
turn('', [read('shopcart/models.py')]);
turn(
  [
    'Here is my understanding before I change anything.',
    '',
    '1. `price_cart` (pricing.py) computes `tax = compute_tax(subtotal, region)` on the full subtotal and only then subtracts the discount, so a 10% code on a 90.00 cart in DE charges 17.10 tax instead of 15.39. The fix is to discount first and tax the discounted amount; the signature stays the same.',
    '2. `apply_codes` (discounts.py) adds every code, so two non-stackable codes both apply. The tests want every stackable code plus only the best non-stackable one.',
    '3. Nothing caps the discount, so a 5.00 fixed code on a 4.00 cart yields a negative total. The cap belongs in `price_cart`, after the codes are combined.',
    '4. `DiscountCode.expires` is never checked. Expired codes must raise; I will add a dedicated exception so callers (the API) can turn it into a 400 instead of a 500.',
    '',
    'Before editing I will write a small reproduction script so I can see the numbers for the DE example outside pytest, then make the changes one at a time and run the suite after each.',
  ].join('\n'),
  [
    write(
      'scripts/repro_checkout.py',
      [
        '"""Reproduce the discount/tax ordering bug outside pytest."""',
        '',
        'from decimal import Decimal',
        '',
        'from shopcart.cart import Cart',
        'from shopcart.discounts import DiscountCode',
        'from shopcart.pricing import price_cart',
        '',
        'CASES = [',
        ...Array.from({ length: 40 }, (_, index) => {
          const region = ['DE', 'FR', 'NL', 'US-CA'][index % 4];
          const kind = index % 3 === 0 ? 'fixed' : 'percent';
          return `    ("case-${index + 1}", "${region}", "SKU-${1000 + index * 7}", ${1 + (index % 4)}, Decimal("${10 + index * 3}.${String((index * 37) % 100).padStart(2, '0')}"), DiscountCode("C${index}", "${kind}", Decimal("${kind === 'fixed' ? 5 : 10 + (index % 3) * 5}"))),`;
        }),
        ']',
        '',
        '',
        'def main() -> None:',
        '    for name, region, sku, quantity, price, code in CASES:',
        '        cart = Cart.empty()',
        '        cart.add(sku, quantity, price)',
        '        breakdown = price_cart(cart, [code], region)',
        '        expected_tax = ((price * quantity) - breakdown.discount) * TAX[region]',
        '        marker = "" if abs(breakdown.tax - expected_tax) < Decimal("0.01") else "  <-- tax on undiscounted subtotal"',
        '        print(f"{name:<8} {region:<6} subtotal={breakdown.subtotal} discount={breakdown.discount} tax={breakdown.tax} total={breakdown.total}{marker}")',
        '',
        '',
        'TAX = {"DE": Decimal("0.19"), "FR": Decimal("0.20"), "NL": Decimal("0.21"), "US-CA": Decimal("0.0725")}',
        '',
        'if __name__ == "__main__":',
        '    main()',
        '',
      ].join('\n'),
    ),
  ],
);
turn('', [
  bash(
    'python scripts/repro_checkout.py',
    Array.from({ length: 40 }, (_, index) => {
      const region = ['DE', 'FR', 'NL', 'US-CA'][index % 4];
      return `case-${index + 1}`.padEnd(8) + ` ${region.padEnd(6)} subtotal=${(10 + index * 3) * (1 + (index % 4))}.00 discount=${index % 3 === 0 ? '5.00' : `${1 + index}.50`} tax=${(3 + index * 0.71).toFixed(2)} total=${((10 + index * 3) * (1 + (index % 4)) * 1.1).toFixed(2)}  <-- tax on undiscounted subtotal`;
    }).join('\n'),
  ),
]);
turn('Every case shows the ordering bug. Reading the existing pricing tests so my change keeps them green.', [
  bash('sed -n 1,80p tests/test_pricing.py', testModule('pricing', Array.from({ length: 9 }, (_, index) => `test_pricing_case_${index + 1}`))),
]);

// Phase 2: the fix, with the usual false starts.
turn('First fix: compute the discount, cap it at the subtotal, then tax the discounted amount.', [
  edit(
    'shopcart/pricing.py',
    '    tax = compute_tax(subtotal, region)\n    discount = apply_codes(subtotal, codes)\n    total = subtotal + tax - discount',
    '    discount = min(apply_codes(subtotal, codes), subtotal)\n    taxable = subtotal - discount\n    tax = compute_tax(taxable, region)\n    total = taxable + tax',
  ),
]);
turn('', [
  pytestRun(56, [stackFailure, expiredFailure]),
]);
turn('Tax and the cap are fixed. Now stacking: I will make apply_codes keep only the best non-stackable code.', [
  edit(
    'shopcart/discounts.py',
    '\tfor code in codes:\n\t\tif code.kind == "percent":\n\t\t\tdiscount += subtotal * code.amount / 100',
    '\tfor code in select_codes(codes):\n        if code.kind == "percent":\n            discount += subtotal * code.amount / 100',
  ),
]);
turn('The edit failed; the indentation in the file must differ from what I assumed. Reading that region again.', [
  read('shopcart/discounts.py', { offset: 40, limit: 40 }),
]);
turn('', [
  edit(
    'shopcart/discounts.py',
    '    discount = Decimal("0")\n    for code in codes:',
    '    discount = Decimal("0")\n    for code in select_codes(subtotal, codes):',
  ),
]);
turn('Now adding select_codes and the expiry check above apply_codes.', [
  edit(
    'shopcart/discounts.py',
    'def apply_codes(subtotal: Decimal, codes: list[DiscountCode]) -> Decimal:',
    [
      'class ExpiredCodeError(ValueError):',
      '    """A discount code past its expiry date."""',
      '',
      '',
      'def _value(subtotal: Decimal, code: DiscountCode) -> Decimal:',
      '    return subtotal * code.amount / 100 if code.kind == "percent" else code.amount',
      '',
      '',
      'def select_codes(subtotal: Decimal, codes: list[DiscountCode], today: date | None = None) -> list[DiscountCode]:',
      '    """Reject expired codes; keep every stackable code and only the best non-stackable one."""',
      '    today = today or date.today()',
      '    for code in codes:',
      '        if code.expires is not None and code.expires < today:',
      '            raise ExpiredCodeError(code.code)',
      '    stackable = [code for code in codes if code.stackable]',
      '    single = [code for code in codes if not code.stackable]',
      '    best = max(single, key=lambda code: _value(subtotal, code), default=None)',
      '    return stackable + ([best] if best else [])',
      '',
      '',
      'def apply_codes(subtotal: Decimal, codes: list[DiscountCode]) -> Decimal:',
    ].join('\n'),
  ),
]);
turn('', [
  bash(
    'python -m pytest -q tests/test_discounts.py',
    [
      '..F.FF..                                                                 [100%]',
      '=================================== FAILURES ===================================',
      '_______________________ test_two_stackable_codes ______________________',
      '',
      '    def test_two_stackable_codes() -> None:',
      '>       discount = apply_codes(Decimal("50.00"), [CODES["SPRING5"], CODES["FREESHIP"]])',
      'shopcart/discounts.py:78: in apply_codes',
      '    for code in select_codes(subtotal, codes):',
      'shopcart/discounts.py:60: in select_codes',
      '    if code.expires is not None and code.expires < today:',
      "E   TypeError: '<' not supported between instances of 'str' and 'datetime.date'",
      '=========================== short test summary info ============================',
      "FAILED tests/test_discounts.py::test_two_stackable_codes - TypeError: '<' not supported between instances of 'str' and 'datetime.date'",
      "FAILED tests/test_discounts.py::test_expired_code_is_rejected - TypeError: '<' not supported between instances of 'str' and 'datetime.date'",
      "FAILED tests/test_discounts.py::test_non_stackable_codes_use_the_best_one - TypeError: '<' not supported between instances of 'str' and 'datetime.date'",
      '3 failed, 5 passed in 0.41s',
    ].join('\n'),
    1,
  ),
]);
turn('The test fixtures build DiscountCode with string dates. Looking at conftest.py to see how CODES is built.', [
  bash(
    'sed -n 1,60p tests/conftest.py',
    [
      'import json',
      'from pathlib import Path',
      '',
      'import pytest',
      '',
      'from shopcart.discounts import DiscountCode',
      '',
      'DATA = Path(__file__).parent.parent / "data"',
      'CODES = {',
      '    entry["code"]: DiscountCode(**entry)',
      '    for entry in json.loads((DATA / "codes.json").read_text())["codes"]',
      '}',
      '',
      '',
      '@pytest.fixture',
      'def codes() -> dict[str, DiscountCode]:',
      '    return CODES',
    ].join('\n'),
  ),
]);
turn('conftest passes the raw JSON into DiscountCode, so amount and expires stay strings. I will normalise in __post_init__ instead of touching the tests.', [
  edit(
    'shopcart/discounts.py',
    '    stackable: bool = False\n',
    [
      '    stackable: bool = False',
      '',
      '    def __post_init__(self) -> None:',
      '        # Codes also come straight from JSON (tests, admin tools): normalise the types here.',
      '        object.__setattr__(self, "amount", Decimal(str(self.amount)))',
      '        if isinstance(self.expires, str):',
      '            object.__setattr__(self, "expires", date.fromisoformat(self.expires))',
      '',
    ].join('\n'),
  ),
]);
turn('', [pytestRun(58, [])]);
turn('All 58 pass. Let me also run the linters the README asks for.', [
  bash(
    'ruff check . && mypy shopcart',
    [
      'shopcart/discounts.py:56:89: E501 Line too long (111 > 100)',
      'shopcart/pricing.py:3:1: I001 [*] Import block is un-sorted or un-formatted',
      'Found 2 errors.',
      '[*] 1 fixable with the `--fix` option.',
    ].join('\n'),
    1,
  ),
]);
turn('', [
  edit(
    'shopcart/discounts.py',
    'def select_codes(subtotal: Decimal, codes: list[DiscountCode], today: date | None = None) -> list[DiscountCode]:',
    'def select_codes(\n    subtotal: Decimal, codes: list[DiscountCode], today: date | None = None\n) -> list[DiscountCode]:',
  ),
  bash('ruff check --fix shopcart/pricing.py', 'Found 1 error (1 fixed, 0 remaining).'),
]);
turn('', [
  bash(
    'ruff check . && mypy shopcart',
    'All checks passed!\nshopcart/discounts.py:66: error: Argument "key" to "max" has incompatible type "Callable[[DiscountCode], Decimal]"; expected "Callable[[DiscountCode], SupportsRichComparison]"  [arg-type]\nFound 1 error in 1 file (checked 11 source files)',
    1,
  ),
]);
turn('mypy cannot see that Decimal is comparable through the lambda; a named key function fixes it.', [
  edit(
    'shopcart/discounts.py',
    '    best = max(single, key=lambda code: _value(subtotal, code), default=None)',
    '    def worth(code: DiscountCode) -> Decimal:\n        return _value(subtotal, code)\n\n    best = max(single, key=worth, default=None)',
  ),
  bash('mypy shopcart', 'Success: no issues found in 11 source files'),
]);

// Phase 3: the user follows up with two more requests and a staging incident.
user(
  [
    'Great, thanks. Two more things while you are in there:',
    '1. Codes must be case-insensitive (support typed "welcome10"), and an expired code should produce a',
    '   clear error that names the code, not a bare ValueError.',
    '2. Checkout returns 500s on staging since yesterday. The log is in logs/checkout.log — please find',
    '   out why and fix it.',
  ].join('\n'),
);
turn('Starting with the staging log.', [bash('cat logs/checkout.log', files.get('logs/checkout.log'))]);
turn('The errors are all the same KeyError on session["currency"]. Counting them and checking the first occurrence.', [
  bash(
    'grep -c "KeyError: \'currency\'" logs/checkout.log && grep -n -m1 -B4 "KeyError" logs/checkout.log',
    files
      .get('logs/checkout.log')
      .split('\n')
      .filter((line) => line.includes('KeyError'))
      .length.toString()
      .concat('\n', files.get('logs/checkout.log').split('\n').slice(41, 46).map((line, index) => `${42 + index}:${line}`).join('\n')),
  ),
]);
turn('Reading the checkout endpoint.', [read('shopcart/api.py')]);
turn('Sessions created before the currency field was introduced have no "currency". Let me see how storage builds sessions.', [
  read('shopcart/storage.py'),
]);
turn('', [
  bash(
    'git log --oneline -8 -- shopcart/storage.py shopcart/api.py',
    [
      '9f3c2a1 api: pass the session currency to place_order (multi-currency, part 2)',
      '41be0d7 storage: add currency to new sessions (multi-currency, part 1)',
      '0aa81f2 storage: move session TTL to settings',
      'c7d1e90 api: return 409 on stale cart versions',
      '5b2e6f4 storage: redis connection pooling',
      'e11f0a3 api: structured logging for checkout',
      '77ad3b2 api: /cart/lines PATCH',
      '2f9e8c5 initial import',
    ].join('\n'),
  ),
]);
turn('Confirmed: old sessions predate 41be0d7. Defaulting to the shop currency for sessions without one.', [
  edit(
    'shopcart/api.py',
    'currency=session["currency"])',
    'currency=session.get("currency", DEFAULT_CURRENCY))',
  ),
  bash('grep -n "DEFAULT_CURRENCY" -r shopcart', 'shopcart/settings.py:12:DEFAULT_CURRENCY = "EUR"'),
]);
turn('', [
  edit('shopcart/api.py', 'from .models import LineItem', 'from .models import LineItem\nfrom .settings import DEFAULT_CURRENCY'),
]);
turn('Now case-insensitive codes: I need to see where codes typed by customers are looked up.', [
  bash(
    'grep -rn "CODES\\[" shopcart',
    'shopcart/api.py:205:    codes = [CODES[code] for code in session.get("codes", [])]\nshopcart/api.py:131:        code = CODES[payload["code"]]',
  ),
]);
turn('', [read('shopcart/api.py', { offset: 120, limit: 30 })]);
turn('I will add a lookup helper in discounts.py that normalises case and raises a named error, and use it in both places.', [
  edit(
    'shopcart/discounts.py',
    'class ExpiredCodeError(ValueError):\n    """A discount code past its expiry date."""',
    [
      'class ExpiredCodeError(ValueError):',
      '    """A discount code past its expiry date."""',
      '',
      '    def __init__(self, code: str) -> None:',
      '        super().__init__(f"discount code {code!r} has expired")',
      '        self.code = code',
      '',
      '',
      'class UnknownCodeError(LookupError):',
      '    """A discount code that does not exist."""',
      '',
      '',
      'def find_code(codes: dict[str, DiscountCode], typed: str) -> DiscountCode:',
      '    """Look a code up the way customers type it: case and surrounding spaces do not matter."""',
      '    wanted = typed.strip().upper()',
      '    for key, code in codes.items():',
      '        if key.upper() == wanted:',
      '            return code',
      '    raise UnknownCodeError(f"unknown discount code {typed!r}")',
    ].join('\n'),
  ),
]);
turn('', [
  edit('shopcart/api.py', '        code = CODES[payload["code"]]', '        code = find_code(CODES, payload["code"])'),
  edit(
    'shopcart/api.py',
    '    codes = [CODES[code] for code in session.get("codes", [])]',
    '    codes = [find_code(CODES, code) for code in session.get("codes", [])]',
  ),
]);
turn('', [
  bash(
    'python -m pytest -q',
    [
      'ImportError while loading conftest \'/work/shopcart/tests/conftest.py\'.',
      'tests/conftest.py:6: in <module>',
      '    from shopcart.discounts import DiscountCode',
      'shopcart/__init__.py:3: in <module>',
      '    from .api import app',
      'shopcart/api.py:132: in <module>',
      '    code = find_code(CODES, payload["code"])',
      "E   NameError: name 'find_code' is not defined",
    ].join('\n'),
    4,
  ),
]);
turn('Forgot the import in api.py.', [
  edit(
    'shopcart/api.py',
    'from .settings import DEFAULT_CURRENCY',
    'from .discounts import ExpiredCodeError, UnknownCodeError, find_code\nfrom .settings import DEFAULT_CURRENCY',
  ),
  pytestRun(58, []),
]);
turn('Adding tests for the new behaviour: case-insensitive lookup, unknown codes, the expired message, and the missing currency.', [
  write(
    'tests/test_codes.py',
    [
      '"""Discount code lookup and errors."""',
      '',
      'from datetime import date',
      'from decimal import Decimal',
      '',
      'import pytest',
      '',
      'from shopcart.discounts import DiscountCode, ExpiredCodeError, UnknownCodeError, find_code, select_codes',
      '',
      'CODES = {',
      '    "WELCOME10": DiscountCode("WELCOME10", "percent", Decimal("10"), date(2027, 1, 31)),',
      '    "vip20": DiscountCode("vip20", "percent", Decimal("20"), date(2027, 6, 30)),',
      '    "SPRING5": DiscountCode("SPRING5", "fixed", Decimal("5"), date(2026, 5, 31), stackable=True),',
      '}',
      '',
      '',
      '@pytest.mark.parametrize("typed", ["WELCOME10", "welcome10", "  Welcome10 "])',
      'def test_lookup_ignores_case_and_spaces(typed: str) -> None:',
      '    assert find_code(CODES, typed).code == "WELCOME10"',
      '',
      '',
      'def test_lowercase_key_found_by_uppercase_input() -> None:',
      '    assert find_code(CODES, "VIP20").code == "vip20"',
      '',
      '',
      'def test_unknown_code_names_the_code() -> None:',
      '    with pytest.raises(UnknownCodeError, match="NOPE"):',
      '        find_code(CODES, "NOPE")',
      '',
      '',
      'def test_expired_code_names_the_code() -> None:',
      '    with pytest.raises(ExpiredCodeError, match="SPRING5"):',
      '        select_codes(Decimal("50"), [CODES["SPRING5"]], today=date(2026, 6, 1))',
      ...codeTableTests(),
      '',
    ].join('\n'),
  ),
]);
turn('', [
  bash(
    'python -m pytest -q tests/test_codes.py',
    [
      '.....F                                                                   [100%]',
      '=================================== FAILURES ===================================',
      '______________________ test_expired_code_names_the_code _______________________',
      '',
      "E       AssertionError: Regex pattern did not match.",
      "E        Regex: 'SPRING5'",
      "E        Input: \"discount code 'SPRING5' has expired\"",
      '',
      'Hmm',
    ].join('\n').replace('\nHmm', '\n1 failed, 5 passed in 0.22s'),
    1,
  ),
]);
turn(
  "That failure is odd: the input contains SPRING5. pytest's match uses re.search on str(exception); let me check what str() gives for the exception object.",
  [
    bash(
      'python -c "from shopcart.discounts import ExpiredCodeError; e = ExpiredCodeError(\'SPRING5\'); print(repr(str(e)), e.args)"',
      "'SPRING5' ('SPRING5',)",
    ),
  ],
);
turn('The raise site still passes the code positionally through ValueError before my __init__ runs... no: str(e) is the bare code, so the class body I edited is not the one being raised. Checking for a second definition.', [
  bash(
    'grep -n "class ExpiredCodeError" -r shopcart',
    'shopcart/discounts.py:53:class ExpiredCodeError(ValueError):\nshopcart/discounts.py:139:class ExpiredCodeError(ValueError):',
  ),
]);
turn('There are two definitions; the generated one further down shadows mine. Reading that part of the file.', [
  read('shopcart/discounts.py', { offset: 125, limit: 30 }),
]);
turn('', [
  bash(
    "python - <<'EOF'\nfrom pathlib import Path\npath = Path('shopcart/discounts.py')\nlines = path.read_text().splitlines()\nstart = next(i for i, line in enumerate(lines) if i > 100 and line.startswith('class ExpiredCodeError'))\ndel lines[start:start + 3]\npath.write_text('\\n'.join(lines) + '\\n')\nEOF\ngrep -c 'class ExpiredCodeError' shopcart/discounts.py",
    '1',
  ),
  pytestRun(64, []),
]);
turn('Running the full verbose suite and the linters once more before I report back.', [pytestRun(64, [], true)]);
turn('', [bash('ruff check . && mypy shopcart', 'All checks passed!\nSuccess: no issues found in 12 source files')]);
turn('Reviewing the whole change set.', [
  bash(
    'git diff',
    [
      'diff --git a/shopcart/api.py b/shopcart/api.py',
      'index 4c1d2e0..a9b8f31 100644',
      '--- a/shopcart/api.py',
      '+++ b/shopcart/api.py',
      '@@ -8,6 +8,8 @@',
      ' from .models import LineItem',
      '+from .discounts import ExpiredCodeError, UnknownCodeError, find_code',
      '+from .settings import DEFAULT_CURRENCY',
      '@@ -128,7 +130,7 @@',
      '-        code = CODES[payload["code"]]',
      '+        code = find_code(CODES, payload["code"])',
      '@@ -202,9 +204,9 @@',
      '-    codes = [CODES[code] for code in session.get("codes", [])]',
      '+    codes = [find_code(CODES, code) for code in session.get("codes", [])]',
      '-    order = await place_order(cart, breakdown, currency=session["currency"])',
      '+    order = await place_order(cart, breakdown, currency=session.get("currency", DEFAULT_CURRENCY))',
      'diff --git a/shopcart/discounts.py b/shopcart/discounts.py',
      ...files.get('shopcart/discounts.py').split('\n').slice(0, 120).map((line) => `+${line}`),
      'diff --git a/shopcart/pricing.py b/shopcart/pricing.py',
      '-    tax = compute_tax(subtotal, region)',
      '-    discount = apply_codes(subtotal, codes)',
      '-    total = subtotal + tax - discount',
      '+    discount = min(apply_codes(subtotal, codes), subtotal)',
      '+    taxable = subtotal - discount',
      '+    tax = compute_tax(taxable, region)',
      '+    total = taxable + tax',
    ].join('\n'),
  ),
]);

// Phase 4: a third request that makes the agent read the big catalog.
user(
  [
    'Looks good. Last one: add `python -m shopcart codes` that lists the active (not expired) codes from',
    'data/codes.json with their kind and amount, and make inventory checks refuse lines whose SKU is not',
    'in data/catalog.json (right now an unknown SKU gets stock 0 and a confusing "out of stock" error).',
  ].join('\n'),
);
turn('Reading the CLI module and the data files.', [read('shopcart/cli.py'), read('data/codes.json')]);
turn('', [read('shopcart/inventory.py')]);
turn('Reading the cart tests too, since unknown SKUs reach the cart first.', [
  bash('sed -n 1,120p tests/test_cart.py', testModule('cart', Array.from({ length: 16 }, (_, index) => `test_cart_case_${index + 1}`))),
]);
turn('Let me look at the catalog to see its structure.', [bash('cat data/catalog.json', files.get('data/catalog.json'))]);
turn('The catalog is a list under "items" with "sku" keys. Checking how inventory loads it.', [
  bash(
    'grep -n "catalog" shopcart/inventory.py',
    'shopcart/inventory.py:31:    catalog = json.loads(CATALOG_PATH.read_text())\nshopcart/inventory.py:32:    return {item["sku"]: item.get("stock", 0) for item in catalog["items"]}\nshopcart/inventory.py:47:def stock_of(sku: str) -> int:\nshopcart/inventory.py:48:    return _stock().get(sku, 0)',
  ),
]);
turn('An unknown SKU falls through to .get(sku, 0). I will raise UnknownSkuError instead.', [
  edit(
    'shopcart/inventory.py',
    'from .models import LineItem',
    'from .models import LineItem\n\n\nclass UnknownSkuError(LookupError):\n    """A SKU that is not in the catalog."""',
  ),
]);
turn('Where is stock checked when a line is added to the cart?', [
  bash(
    'grep -rn "stock" shopcart | head -20',
    'shopcart/api.py:77:    if not has_stock(line.sku, line.quantity):\nshopcart/api.py:78:        raise HTTPException(409, "out of stock")\nshopcart/cart.py:140:def has_stock(sku: str, quantity: int) -> bool:\nshopcart/cart.py:141:    return STOCK.get(sku, 0) >= quantity',
  ),
]);
turn('has_stock lives in cart.py. Re-reading cart.py around it.', [read('shopcart/cart.py', { offset: 120, limit: 60 })]);
turn('', [
  edit('shopcart/cart.py', 'def has_stock', 'def _has_stock'),
  write(
    'shopcart/stock.py',
    [
      '"""Stock checks against data/catalog.json."""',
      '',
      'from __future__ import annotations',
      '',
      'import json',
      'from functools import cache',
      'from pathlib import Path',
      '',
      'from .inventory import UnknownSkuError',
      '',
      'CATALOG_PATH = Path(__file__).parent.parent / "data" / "catalog.json"',
      '',
      '',
      '@cache',
      'def _stock() -> dict[str, int]:',
      '    catalog = json.loads(CATALOG_PATH.read_text())',
      '    return {item["sku"]: int(item.get("stock", 0)) for item in catalog["items"]}',
      '',
      '',
      'def has_stock(sku: str, quantity: int) -> bool:',
      '    """True when the catalog holds at least `quantity` of the SKU; unknown SKUs raise."""',
      '    stock = _stock()',
      '    if sku not in stock:',
      '        raise UnknownSkuError(f"unknown SKU {sku!r}")',
      '    return stock[sku] >= quantity',
      '',
    ].join('\n'),
  ),
]);
turn('', [
  edit('shopcart/api.py', 'from .settings import DEFAULT_CURRENCY', 'from .settings import DEFAULT_CURRENCY\nfrom .stock import has_stock'),
  pytestRun(63, [
    {
      file: 'test_cart.py',
      test: 'test_merge_guest_cart_keeps_quantities',
      summary: "NameError: name 'has_stock' is not defined",
      trace: [
        '    def test_merge_guest_cart_keeps_quantities() -> None:',
        '>       merged = merge_carts(guest, account)',
        'shopcart/cart.py:188: in merge_carts',
        '    if not has_stock(line.sku, line.quantity):',
        "E   NameError: name 'has_stock' is not defined",
      ].join('\n'),
    },
  ]),
]);
turn('cart.py uses has_stock internally too. Importing it there from stock.py would be circular (stock → inventory → models is fine, cart is not involved), so that is safe.', [
  edit('shopcart/cart.py', 'from .models import LineItem', 'from .models import LineItem\nfrom .stock import has_stock'),
  edit('shopcart/cart.py', 'def _has_stock', 'def _unused_has_stock'),
  pytestRun(64, []),
]);
turn('Now the CLI command.', [
  edit(
    'shopcart/cli.py',
    '    commands.add_parser("reindex", help="rebuild the catalog index")',
    '    commands.add_parser("reindex", help="rebuild the catalog index")\n    commands.add_parser("codes", help="list the active discount codes")',
  ),
  edit(
    'shopcart/cli.py',
    '    if arguments.command == "reindex":\n        return reindex()',
    [
      '    if arguments.command == "reindex":',
      '        return reindex()',
      '    if arguments.command == "codes":',
      '        today = date.today()',
      '        for code in sorted(load_codes(CODES_PATH).values(), key=lambda code: code.code.upper()):',
      '            if code.expires is None or code.expires >= today:',
      '                print(f"{code.code:<12} {code.kind:<8} {code.amount}")',
      '        return 0',
    ].join('\n'),
  ),
]);
turn('', [
  bash(
    'python -m shopcart codes',
    "Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\n  File \"/work/shopcart/shopcart/__main__.py\", line 3, in <module>\n    raise SystemExit(main())\n  File \"/work/shopcart/shopcart/cli.py\", line 231, in main\n    today = date.today()\nNameError: name 'date' is not defined",
    1,
  ),
]);
turn('', [
  edit(
    'shopcart/cli.py',
    'import logging\n',
    'import logging\nfrom datetime import date\nfrom pathlib import Path\n\nfrom .discounts import load_codes\n\nCODES_PATH = Path(__file__).parent.parent / "data" / "codes.json"\n',
  ),
  bash('python -m shopcart codes', 'FREESHIP     fixed    4.95\nvip20        percent  20\nWELCOME10    percent  10'),
]);
turn('SPRING5 (expired in May) is correctly left out. Adding tests for the command and the unknown SKU.', [
  write(
    'tests/test_cli_and_stock.py',
    [
      '"""The codes command and catalog-backed stock checks."""',
      '',
      'import pytest',
      '',
      'from shopcart.cli import main',
      'from shopcart.inventory import UnknownSkuError',
      'from shopcart.stock import has_stock',
      '',
      '',
      'def test_codes_lists_only_active_codes(capsys: pytest.CaptureFixture[str]) -> None:',
      '    assert main(["codes"]) == 0',
      '    out = capsys.readouterr().out',
      '    assert "WELCOME10" in out and "SPRING5" not in out',
      '',
      '',
      'def test_unknown_sku_is_refused() -> None:',
      '    with pytest.raises(UnknownSkuError, match="SKU-0000"):',
      '        has_stock("SKU-0000", 1)',
      '',
      '',
      'def test_known_sku_in_stock() -> None:',
      '    assert has_stock("SKU-1000", 0)',
      '',
    ].join('\n'),
  ),
  pytestRun(67, []),
]);
turn('Updating the README with the new command.', [
  edit(
    'README.md',
    '## Rules',
    '## Admin commands\n\n- `python -m shopcart codes` lists the active discount codes from `data/codes.json`.\n- `python -m shopcart reindex` rebuilds the catalog index.\n\n## Rules',
  ),
]);
turn('Final check of everything together.', [
  pytestRun(67, [], true),
  bash('ruff check . && mypy shopcart', 'All checks passed!\nSuccess: no issues found in 13 source files'),
]);
turn('', [
  bash(
    'git status --short',
    ' M README.md\n M shopcart/api.py\n M shopcart/cart.py\n M shopcart/cli.py\n M shopcart/discounts.py\n M shopcart/inventory.py\n M shopcart/pricing.py\n?? shopcart/stock.py\n?? tests/test_cli_and_stock.py\n?? tests/test_codes.py',
  ),
]);
flushResults();
lines.push({
  role: 'assistant',
  content: [
    {
      type: 'text',
      text: [
        'Done. Summary of the changes:',
        '',
        '- **Tax after discount** (`shopcart/pricing.py`): `price_cart` now applies the discount first, caps it at the subtotal, and taxes the discounted amount. Signature unchanged.',
        '- **Stacking and expiry** (`shopcart/discounts.py`): `select_codes` keeps every stackable code plus the best non-stackable one and raises `ExpiredCodeError("discount code \'X\' has expired")`; `DiscountCode` normalises amounts and dates read from JSON. A duplicate `ExpiredCodeError` definition further down the file was removed.',
        '- **Case-insensitive codes**: `find_code` ignores case and surrounding spaces and raises `UnknownCodeError` naming the code; both lookups in `api.py` use it.',
        "- **Staging 500s**: every error in `logs/checkout.log` was `KeyError: 'currency'` from sessions created before commit 41be0d7; checkout now falls back to `DEFAULT_CURRENCY` (EUR).",
        '- **`python -m shopcart codes`** lists active codes; **unknown SKUs** now raise `UnknownSkuError` (new `shopcart/stock.py`) instead of reading as out of stock.',
        '',
        'Verified with `python -m pytest` (67 passed), `ruff check .` and `mypy shopcart` (clean). New tests: `tests/test_codes.py`, `tests/test_cli_and_stock.py`. Nothing is committed.',
      ].join('\n'),
    },
  ],
});

process.stdout.write(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
