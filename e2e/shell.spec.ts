import { test, expect } from '@playwright/test';

test('app shell renders at a phone viewport without console errors', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'dsh dispatch' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Pair a machine' })).toBeVisible();
  expect(errors).toEqual([]);
});
