// Regenerates testdata/cron/nextrun.json: next-run times computed by the
// ORIGINAL OpenClaw's own scheduler code (its src/cron/schedule.ts, built
// on the croner npm package), for expressions x time zones x instants
// around daylight-saving changes, plus its default stagger windows and its
// parsing of `at` timestamps. Run through scripts/cron-nextrun-table.sh.
//
//   node cron-nextrun-table.mjs <openclaw dist dir> > testdata/cron/nextrun.json
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
if (!dist) throw new Error("usage: cron-nextrun-table.mjs <openclaw dist dir>");

// The bundle's chunk names carry content hashes: find each function by the
// name it is exported under ("export { computeNextRunAtMs as t }").
async function load(fn, mustContain) {
	for (const f of fs.readdirSync(dist)) {
		if (!f.endsWith(".mjs")) continue;
		const text = fs.readFileSync(path.join(dist, f), "utf8");
		if (mustContain && !text.includes(mustContain)) continue;
		const m = new RegExp(`\\b${fn} as (\\w+)\\b`).exec(text);
		if (!m || !/^export \{/m.test(text)) continue;
		const mod = await import(pathToFileURL(path.join(dist, f)).href);
		if (typeof mod[m[1]] === "function") return { fn: mod[m[1]], file: f };
	}
	throw new Error(`${fn} not found in ${dist}`);
}

const next = await load("computeNextRunAtMs", 'from "croner"');
const stagger = await load("resolveDefaultCronStaggerMs");
const parseAt = await load("parseAbsoluteTimeMs");
// croner is resolved the way the bundle resolves it (node_modules upwards).
function cronerVersion() {
	for (let dir = dist; dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const p = path.join(dir, "node_modules", "croner", "package.json");
		if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, "utf8")).version;
	}
	return "unknown";
}
const croner = cronerVersion();
const openclaw = JSON.parse(fs.readFileSync(path.join(dist, "..", "package.json"), "utf8")).version;

const exprs = [
	"0 7 * * *", "30 2 * * *", "0 2 * * *", "30 1 * * *", "0 1 * * *", "15 3 * * *", "45 0 * * *",
	"0 * * * *", "*/15 * * * *", "*/7 * * * *", "0 */2 * * *", "0 */6 * * *", "30 0-6/2 * * *", "0 2-3 * * *",
	"*/20 1-3 * * *", "0 0 * * *", "59 23 * * *", "0 9 * * 1-5", "0 22 * * 1-5", "0 9 1 * MON", "0 12 1 * +MON",
	"0 0 1,15 * 3", "0 0 L * *", "0 0 LW * *", "0 0 15W * *", "0 9 * * 5#2", "0 9 * * FRI#L", "0 9 * * 5L",
	"0 0 29 2 *", "0 0 31 * *", "30 2 * * 0", "5 4 * * sun", "0 0 * * 7", "0 0 ? * MON", "0 0 1 * ?",
	"*/30 * * * * *", "0 30 2 * * *", "15 30 1 * * *", "0 0 * * * *", "0 0 */3 * * *", "0 0 0 1 1 * 2030",
	"@daily", "@hourly", "@weekly", "@monthly", "0 12 * JAN-MAR,OCT *", "59 23 31 12 *",
];

// Zones with DST transitions of different shapes (northern, southern,
// 30-minute, 45-minute offsets), plus zones without DST.
const zones = {
	"UTC": [],
	"America/New_York": ["2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z"],
	"America/Los_Angeles": ["2026-03-08T10:00:00Z", "2026-11-01T09:00:00Z"],
	"Europe/Berlin": ["2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z"],
	"Europe/London": ["2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z"],
	"Australia/Sydney": ["2026-04-04T16:00:00Z", "2026-10-03T16:00:00Z"],
	"Australia/Lord_Howe": ["2026-04-04T15:00:00Z", "2026-10-03T15:30:00Z"],
	"Pacific/Chatham": ["2026-04-04T14:00:00Z", "2026-09-26T14:00:00Z"],
	"America/St_Johns": ["2026-03-08T05:30:00Z", "2026-11-01T04:30:00Z"],
	"Asia/Kolkata": [],
	"America/Sao_Paulo": [],
};
const general = ["2026-01-15T12:00:00Z", "2026-02-28T23:59:59.500Z", "2028-02-28T12:34:56Z"];
const around = [-26 * 3600e3, -2 * 3600e3, -3600e3, -1800e3, -1e3, 0, 1e3, 1800e3, 3600e3, 2 * 3600e3];

const cases = [];
for (const [tz, transitions] of Object.entries(zones)) {
	const instants = general.map((s) => Date.parse(s));
	for (const t of transitions) for (const d of around) instants.push(Date.parse(t) + d);
	for (const expr of exprs) {
		for (const from of instants) {
			const runs = [];
			let now = from;
			for (let i = 0; i < 3; i++) {
				const n = next.fn({ kind: "cron", expr, tz }, now);
				if (n === undefined) break;
				runs.push(n);
				now = n;
			}
			cases.push({ expr, tz, from, runs });
		}
	}
}

const staggers = exprs.map((expr) => ({ expr, staggerMs: stagger.fn(expr) ?? 0 }));
const atInputs = ["2030-02-01T16:00:00Z", "2030-02-01T16:00:00", "2030-02-01", "2030-02-01T16:00:00+02:00",
	"2030-02-01T16:00:00.123Z", "1896192000000", "2030-02-30T10:00:00Z", "2030-02-01T24:00:00Z", "not a date", "",
	"2030-02-01t16:00:00z", "2030-02-01T16:00Z", "2030-02-01T16:00:00-0530"];
const ats = atInputs.map((input) => ({ input, ms: parseAt.fn(input) }));

process.stdout.write(JSON.stringify({
	source: `openclaw ${openclaw} dist/${next.file} computeNextRunAtMs (croner ${croner}); ${stagger.file} resolveDefaultCronStaggerMs; ${parseAt.file} parseAbsoluteTimeMs`,
	made: "scripts/cron-nextrun-table.sh: each case chains computeNextRunAtMs(schedule, now) three times from `from`",
	cases, staggers, ats,
}) .replace(/\{"expr"/g, '\n{"expr"').replace(/\{"input"/g, '\n{"input"') + "\n");
