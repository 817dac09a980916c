// Real Chromium for the dashboard tests (playwright-core, the system's /usr/bin/chromium) with
// the bearer token on every request, and screenshots under test-output/dashboard/ for review.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { requireCommand } from '../../support/prerequisites.ts';

export const screenshotDir = resolve('test-output/dashboard');

export interface Browser {
  open(url: string): Promise<Page>;
  /** Writes a full-page screenshot to screenshotDir/<name>.png and prints its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBrowser(token: string): Promise<Browser> {
  requireCommand('chromium', 'apt-get install chromium');
  // A fresh profile directory (playwright passes it as --user-data-dir).
  const profile = await mkdtemp(join(tmpdir(), 'knredis-chromium-'));
  await mkdir(screenshotDir, { recursive: true });
  let context: BrowserContext | undefined;
  return {
    async open(url) {
      context ??= await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        extraHTTPHeaders: { authorization: `Bearer ${token}` },
        viewport: { width: 1500, height: 500 },
      });
      const page = await context.newPage();
      await page.goto(url);
      return page;
    },
    async screenshot(page, name) {
      const path = join(screenshotDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`      screenshot: ${path}`);
      return path;
    },
    async close() {
      await context?.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
