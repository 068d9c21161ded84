// What the hip4 GraphQL fields share beyond their input definitions (service/inputs.ts).

/** A nullable GraphQL argument as the service's optional input. */
export const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;
