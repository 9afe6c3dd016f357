// Parse at the edge: every parser in protocol/ returns a Result instead of throwing, so callers
// must handle the failure and the failure always has a stable code plus a human message.
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<C extends string> = {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
};
export type Result<T, C extends string> = Ok<T> | Err<C>;

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
export const err = <C extends string>(code: C, message: string): Err<C> => ({
  ok: false,
  code,
  message,
});
