/** The page's one stylesheet, allowed by its hash in the Content-Security-Policy. No external font or image. */
export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f6f3; --card: #ffffff; --fg: #1c1c1e; --muted: #5c5f66; --line: #d3d3cd;
  --accent: #1a5fd0; --on-accent: #ffffff; --mine: #e7eefc;
  --done: #17743a; --rejected: #b3261e; --limited: #8a5800;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #131416; --card: #1c1d21; --fg: #e9e9e6; --muted: #a3a6ad; --line: #3b3e45;
    --accent: #8ab4f8; --on-accent: #0b1b36; --mine: #1f2b40;
    --done: #7fd69b; --rejected: #f59b93; --limited: #f2c65a;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--fg); }
.page { max-width: 70rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
code, pre, .code { font-family: ui-monospace, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: .9em; }
h1 { margin: 0; font-size: .95rem; font-weight: 600; color: var(--muted); letter-spacing: .02em; }
h1 code { color: var(--fg); background: var(--card); border: 1px solid var(--line); border-radius: .35rem; padding: .05rem .4rem; }
h2 { font-size: 1.2rem; margin: 2.25rem 0 .75rem; }
.prompt { font-size: 1.4rem; line-height: 1.4; max-width: 46rem; margin: .75rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.prompt.empty { color: var(--muted); font-size: 1.1rem; }
.lead { margin: 0 0 1rem; color: var(--muted); max-width: 46rem; }
.messages { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .6rem; max-width: 46rem; }
.message { align-self: flex-start; max-width: 88%; background: var(--card); border: 1px solid var(--line); border-radius: .9rem .9rem .9rem .25rem; padding: .45rem .9rem .6rem; }
.message.user { align-self: flex-end; background: var(--mine); border-radius: .9rem .9rem .25rem .9rem; }
.role { display: block; font-size: .75rem; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); }
.content { white-space: pre-wrap; overflow-wrap: anywhere; }
.compose { display: grid; gap: 1.25rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 60rem) {
  .compose { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); align-items: start; }
  .side { position: sticky; top: 1rem; }
}
.inputs, .side { background: var(--card); border: 1px solid var(--line); border-radius: .8rem; padding: 1rem; }
.side { display: flex; flex-direction: column; gap: .6rem; }
fieldset { margin: 0; min-width: 0; border: 1px solid var(--line); border-radius: .6rem; padding: .4rem .85rem .85rem; }
legend { padding: 0 .35rem; max-width: 100%; }
.head { display: flex; flex-wrap: wrap; align-items: center; gap: .2rem .6rem; margin-bottom: .3rem; }
.name { font-weight: 650; overflow-wrap: anywhere; }
.title { color: var(--muted); }
.hint { color: var(--muted); font-size: .85rem; }
.help { margin: 0 0 .45rem; color: var(--muted); font-size: .92rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.field + .field, .node > .hint, .alt, .picker + .alt { margin-top: .9rem; }
.field.omitted > .node:not([data-kind=tristate]) > :not(.head) { opacity: .55; }
.inc { margin-left: auto; display: inline-flex; align-items: center; gap: .45rem; font-size: .85rem; color: var(--muted); cursor: pointer;
  padding-left: .6rem; border-left: 1px solid var(--line); }
/* The include switch is a toggle, unlike any value's control: whether a member is sent, not what it says. */
input[type=checkbox].include { appearance: none; position: relative; width: 2.1rem; height: 1.2rem; border-radius: 1rem; background: var(--line); cursor: pointer; transition: background .15s; }
input[type=checkbox].include::before { content: ""; position: absolute; top: .15rem; left: .15rem; width: .9rem; height: .9rem; border-radius: 50%; background: var(--card); transition: left .15s; }
input[type=checkbox].include:checked { background: var(--accent); }
input[type=checkbox].include:checked::before { left: 1.05rem; }
.choice.out { border-style: dashed; color: var(--muted); font-style: italic; }
input[type=text], input[type=number], input[type=date], input[type=url], select, textarea {
  display: block; width: 100%; font: inherit; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: .45rem; padding: .5rem .65rem;
}
textarea { resize: vertical; min-height: 4.5rem; }
textarea.code { font-size: .9rem; line-height: 1.45; }
#body { min-height: 9rem; }
@media (min-width: 60rem) { #body { min-height: 14rem; } }
input[type=checkbox], input[type=radio] { width: 1.15rem; height: 1.15rem; margin: 0; accent-color: var(--accent); }
.picker { display: flex; flex-wrap: wrap; align-items: center; gap: .35rem .6rem; }
.picker label { color: var(--muted); font-size: .9rem; }
.picker select { width: auto; min-width: 12rem; flex: 1; }
.choices { display: flex; flex-wrap: wrap; gap: .5rem; }
.choice { display: inline-flex; align-items: center; gap: .5rem; padding: .45rem .95rem; border: 1px solid var(--line); border-radius: 2rem; cursor: pointer; }
.choice:has(:checked) { border-color: var(--accent); box-shadow: inset 0 0 0 1px var(--accent); }
.items { list-style: none; margin: 0 0 .6rem; padding: 0; display: flex; flex-direction: column; gap: .6rem; }
.item { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: .6rem; align-items: end; }
.item:has(> fieldset) { grid-template-columns: minmax(0, 1fr); }
.item:has(> fieldset) > .remove { justify-self: end; }
button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: .45rem; padding: .4rem .85rem; cursor: pointer; }
button:hover { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: not-allowed; border-color: var(--line); }
#act-button { align-self: flex-start; background: var(--accent); color: var(--on-accent); border-color: var(--accent); font-weight: 700; font-size: 1.05rem; padding: .55rem 2rem; }
#act-button[aria-disabled=true] { opacity: .6; cursor: progress; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
#body-note { margin: 0; }
#body-note.problem { color: var(--rejected); }
#body-note.pending { color: var(--limited); }
.issues { margin: .2rem 0 0; padding-left: 1.2rem; }
.outcome .issues { font-weight: 400; }
.body-label { font-weight: 650; }
.outcome:empty { display: none; }
.outcome { border: 1px solid var(--line); border-left: 5px solid var(--muted); border-radius: .5rem; padding: .5rem .85rem; }
.outcome p { margin: 0; }
.outcome pre { margin: .5rem 0 0; max-height: 24rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.outcome.done { border-left-color: var(--done); }
.outcome.rejected, .outcome.problem { border-left-color: var(--rejected); }
.outcome.limited { border-left-color: var(--limited); }
.outcome.done p, .outcome.rejected p, .outcome.problem p, .outcome.limited p { font-weight: 600; }
.outcome.done p { color: var(--done); }
.outcome.rejected p, .outcome.problem p { color: var(--rejected); }
.outcome.limited p { color: var(--limited); }
pre { margin: 0; padding: .75rem; overflow: auto; background: var(--card); border: 1px solid var(--line); border-radius: .6rem; }
.schema { max-height: 32rem; }
.runtimes { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); font-size: .92rem; }
.runtimes th, .runtimes td { text-align: left; padding: .35rem .75rem; border-top: 1px solid var(--line); }
.runtimes thead th { color: var(--muted); font-weight: 600; }
.verdict.exact { color: var(--done); }
.verdict.loosened { color: var(--limited); }
.verdict.refused { color: var(--rejected); font-weight: 600; }
html:not(.live) .needs-script { display: none; }
noscript p { color: var(--muted); }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .9rem; }
`
