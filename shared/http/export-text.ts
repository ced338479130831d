import { z } from './zod.js';

/**
 * Text that goes into the accounting exports (docs/domain.md "Billing", exports): spreadsheets and
 * the imports behind them run a cell as a formula when it starts with = + - @, a tab or a carriage
 * return (OWASP "CSV injection"), and a program that splits the cell again on a separator (a
 * semicolon-separated locale, a pasted cell) runs what follows `;=`, `,+`, ... The rule is checked
 * where a name is entered (exportName), so an export writes the name exactly as it was entered.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A separator (, ; | tab CR LF), optional spaces, then a formula character. */
const SEPARATED_FORMULA = /([,;|\t\r\n] *)(?=[=+\-@])/g;

/** Whether a spreadsheet could read `value`, or a part of it after a separator, as a formula. */
export function formulaRisk(value: string): boolean {
  return FORMULA_START.test(value) || new RegExp(SEPARATED_FORMULA.source).test(value);
}

/**
 * For text that breaks the rule although entered before it (rows stored earlier, or sent by an
 * older site): an apostrophe before each formula start, at the beginning and after a separator, so
 * that no part of it runs. Text that keeps the rule is returned as it is.
 */
export function neutralizeFormula(value: string): string {
  if (!formulaRisk(value)) return value;
  const inner = value.replace(SEPARATED_FORMULA, "$1'");
  return FORMULA_START.test(inner) ? `'${inner}` : inner;
}

/** What the user reads when a name breaks the rule. */
export const EXPORT_NAME_MESSAGE =
  'must not start with =, +, -, @ or a tab, nor have one of = + - @ right after a comma, semicolon or |: spreadsheets and accounting imports would read it as a formula';

/** A name that reaches the exports (carrier, bill-to, adjustment description): trimmed, 1..max characters, keeping the rule. */
export function exportName(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((value) => !formulaRisk(value), EXPORT_NAME_MESSAGE);
}
