import { describe, expect, it } from "vitest";
import {
  csvCell,
  dollarsToCents,
  ilikeValue,
  pageCount,
  pageRange,
  searchFilter,
  stalledBefore,
  toCsv,
  withdrawable,
} from "./logic";

describe("pages", () => {
  it("asks PostgREST for 25 rows a page, both ends included", () => {
    expect(pageRange(1)).toEqual({ from: 0, to: 24 });
    expect(pageRange(3)).toEqual({ from: 50, to: 74 });
    expect(pageRange(0)).toEqual({ from: 0, to: 24 });
  });

  it("counts at least one page, so an empty table reads page 1 of 1", () => {
    expect([pageCount(0), pageCount(25), pageCount(26), pageCount(50_000)]).toEqual([1, 1, 2, 2000]);
  });
});

describe("search", () => {
  it("finds the term anywhere in each column, as one or filter", () => {
    expect(searchFilter("  lena ", ["name", "email"])).toBe('name.ilike."*lena*",email.ilike."*lena*"');
    expect(searchFilter("   ", ["name"])).toBeNull();
  });

  it("matches what was typed literally: LIKE's wildcards, PostgREST's syntax and quotes are escaped", () => {
    expect(ilikeValue("100%_done")).toBe('"*100\\\\%\\\\_done*"');
    expect(ilikeValue('a,b.(c)"d')).toBe('"*a,b.(c)\\"d*"');
    expect(ilikeValue("x*y")).toBe('"*x_y*"');
  });
});

describe("CSV", () => {
  it("quotes commas, quotes and line breaks, and ends every line with CRLF", () => {
    const csv = toCsv(
      [
        { label: "Name", value: (r: { name: string; note: string }) => r.name },
        { label: "Note", value: (r) => r.note },
      ],
      [{ name: "Lee, Ana", note: 'said "call me"\nafter 5' }],
    );
    expect(csv).toBe('Name,Note\r\n"Lee, Ana","said ""call me""\nafter 5"\r\n');
  });

  it("makes a cell that a spreadsheet would run as a formula plain text", () => {
    expect(["=HYPERLINK(1)", "+1", "-2", "@SUM(A1)", "\tx"].map(csvCell)).toEqual([
      "'=HYPERLINK(1)",
      "'+1",
      "'-2",
      "'@SUM(A1)",
      "'\tx",
    ]);
    expect([null, undefined, 3, "plain"].map(csvCell)).toEqual(["", "", "3", "plain"]);
  });
});

it("a student is stalled when their last activity is 14 days or more before now", () => {
  expect(stalledBefore(new Date("2026-11-28T12:00:00Z"))).toBe("2026-11-14T12:00:00.000Z");
});

describe("an offer's price as the admin types it", () => {
  it("reads dollars with or without the sign, thousands commas and cents", () => {
    expect(["35000", "$35,000", "$ 35,000.00", "3,995.5", "3995.50", "0.01"].map(dollarsToCents)).toEqual([
      3500000, 3500000, 3500000, 399550, 399550, 1,
    ]);
  });

  it("refuses what is not a price above zero, rather than guess", () => {
    expect(["", "0", "0.00", "35k", "35,00", "1.234", "-5", "35 000", "1e6"].map(dollarsToCents)).toEqual(
      Array(9).fill(null),
    );
  });
});

describe("withdrawing an offer", () => {
  it("is open until it is paid or withdrawn", () => {
    expect((["sent", "opened", "expired", "paid", "withdrawn"] as const).map(withdrawable)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
