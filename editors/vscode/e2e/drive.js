// e2e/drive.js drives a running code-server (VS Code in the browser) with
// Chromium through playwright-core, as a user would: it opens the example's
// buggy Java file, waits for JDT LS's diagnostic on the buggy line (so the
// proxy and JDT LS are up), selects the buggy line, opens the code action
// menu (Ctrl+.) and checks that "Repair hunk with Repilot" and "Semantic
// search in repo" are offered next to JDT LS's own actions. With
// REPILOT_E2E_REPAIR=1 (the script's default) it then runs the repair and
// checks that the menu offers an "Apply Repilot patch" action whose edit
// changes the line.
//
// Usage: node drive.js URL FILE LINE   (run by scripts/check-vscode-e2e.sh;
// NODE_PATH must reach playwright-core). Exit status 0 when every check
// passed; a screenshot of each failure goes to $REPILOT_E2E_OUT.
'use strict';

const path = require('path');
const { chromium } = require('playwright-core');

const [url, file, lineArg] = process.argv.slice(2);
const line = Number(lineArg);
const out = process.env.REPILOT_E2E_OUT || '/tmp';
const chrome = process.env.CHROMIUM || '/usr/bin/chromium';
const readyTimeout = Number(process.env.REPILOT_E2E_READY_S || 240) * 1000;

function log(msg) {
  process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

async function menuItems(page, timeout = 30000) {
  // The code action menu of VS Code 1.96: an action widget with one list row per action.
  await page.waitForSelector('.action-widget .monaco-list-row', { timeout });
  await page.waitForTimeout(500); // actions from slower providers
  // Group headers ("Quick Fix", "More Actions...") are rows too; keep actions only.
  return page.$$eval('.action-widget .monaco-list-row.action', (rows) =>
    rows.map((r) => (r.getAttribute('aria-label') || r.textContent || '').trim()).filter(Boolean));
}

// openMenu opens the code action menu on the selection. Right after JDT LS
// comes up, VS Code can show "No code actions available" (seen once, when
// JDT LS had cancelled the lightbulb's request while it was still
// building); then it tries again, up to six times, saying so.
async function openMenu(page, line) {
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) await selectLine(page, line); // Escape dropped the selection
    await page.keyboard.press('Control+Period');
    try {
      return await menuItems(page, 10000);
    } catch (err) {
      if (attempt === 6) throw err;
      const msg = await page.$eval('.monaco-editor-overlaymessage', (e) => e.textContent.trim()).catch(() => 'no menu');
      log(`code action menu attempt ${attempt}: ${msg}; trying again`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(3000);
    }
  }
}

// chooseAction moves the open menu's focus to the first action whose label
// matches re and runs it with Enter (a click can land on the menu's
// pointer-blocking overlay).
async function chooseAction(page, re) {
  for (let i = 0; i < 30; i++) {
    const label = await page.$eval('.action-widget .monaco-list-row.action.focused',
      (r) => (r.getAttribute('aria-label') || r.textContent || '').trim()).catch(() => '');
    if (re.test(label)) {
      await page.keyboard.press('Enter');
      return label;
    }
    await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(100);
  }
  throw new Error(`no action matching ${re} could be focused in the menu`);
}

async function selectLine(page, n) {
  await page.keyboard.press('Control+G');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible' });
  await page.keyboard.type(String(n));
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  await page.keyboard.press('Home');
  await page.keyboard.press('Home'); // column 1, not the first non-blank
  await page.keyboard.press('Shift+End');
}

async function lineText(page, n) {
  // The rendered view line for the model line n (1-based), via the line numbers' top offsets.
  return page.evaluate((n) => {
    const nums = [...document.querySelectorAll('.monaco-editor .margin-view-overlays .line-numbers')];
    const num = nums.find((e) => e.textContent.trim() === String(n));
    if (!num) return null;
    const top = num.parentElement.style.top;
    const row = [...document.querySelectorAll('.monaco-editor .view-lines .view-line')].find((e) => e.style.top === top);
    return row ? row.textContent.replace(/\u00a0/g, ' ') : null;
  }, n);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: chrome,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  let failed = false;
  const fail = async (msg) => {
    failed = true;
    log(`FAIL: ${msg}`);
    await page.screenshot({ path: path.join(out, `vscode-e2e-fail-${Date.now()}.png`) }).catch(() => undefined);
  };
  try {
    log(`open ${url}`);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.waitForTimeout(2000);

    log(`quick open ${path.basename(file)}`);
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible' });
    await page.keyboard.type(file);
    await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 30000 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.tab[aria-label^="${path.basename(file)}"]`, { timeout: 30000 });
    await page.waitForSelector('.monaco-editor .view-lines', { timeout: 30000 });

    // JDT LS's compile error on the buggy line proves the server chain is up:
    // VS Code -> extension -> repilot-lsp (proxy) -> JDT LS.
    log('wait for JDT LS diagnostics through the proxy');
    await page.waitForSelector('.monaco-editor .squiggly-error', { timeout: readyTimeout });
    log('diagnostic shown');

    await page.click('.monaco-editor .view-lines');
    await selectLine(page, line);
    const items = await openMenu(page, line);
    log(`code actions on line ${line}: ${JSON.stringify(items)}`);
    const ours = ['Repair hunk with Repilot', 'Semantic search in repo'];
    for (const t of ours) {
      if (!items.some((i) => i.includes(t))) await fail(`"${t}" is not in the code action menu`);
    }
    const others = items.filter((i) => !ours.some((t) => i.includes(t)) && !/^Apply Repilot patch/.test(i));
    if (others.length === 0) await fail('no JDT LS code action next to ours (expected its quick fixes for the error)');
    else log(`JDT LS actions beside ours: ${JSON.stringify(others)}`);
    await page.keyboard.press('Escape');

    if (process.env.REPILOT_E2E_REPAIR === '1' && !failed) {
      log('run "Repair hunk with Repilot"');
      const before = await lineText(page, line);
      await selectLine(page, line);
      await openMenu(page, line);
      await chooseAction(page, /^Repair hunk with Repilot/);
      const deadline = Date.now() + Number(process.env.REPILOT_E2E_REPAIR_S || 240) * 1000;
      let patch = null;
      while (!patch && Date.now() < deadline) {
        await page.waitForTimeout(5000);
        await page.keyboard.press('Escape');
        await selectLine(page, line);
        const now = await openMenu(page, line).catch(() => []);
        patch = now.find((i) => /^Apply Repilot patch/.test(i)) || null;
        if (!patch) await page.keyboard.press('Escape');
      }
      if (!patch) {
        await fail('no "Apply Repilot patch" action after the repair');
      } else {
        log(`patch offered: ${patch}`);
        await chooseAction(page, /^Apply Repilot patch/);
        await page.waitForTimeout(1500);
        const after = await lineText(page, line);
        log(`line ${line} before: ${JSON.stringify(before)}; after: ${JSON.stringify(after)}`);
        if (after === before) await fail('applying the patch did not change the line');
      }
    }
  } catch (err) {
    await fail(err && err.stack ? err.stack : String(err));
  } finally {
    await browser.close().catch(() => undefined);
  }
  process.exit(failed ? 1 : 0);
}

main();
