// The error contract: every failure is JSON `{"error": "..."}` with the status ARCHITECTURE.md assigns; thrown as
// typed errors and shaped in one place (app.ts's error handler).

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (message: string) => new HttpError(404, message);
