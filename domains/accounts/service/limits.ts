// The accounts service's page sizes and caps that its edges state too (the input definitions, descriptions).

/** The exchange's cap on userFills, userFillsByTime and userTwapSliceFills answers (and a GraphQL page of fills). */
export const MAX_WIRE_FILLS = 2000;
/** Compact fill rows per page when the caller gives no limit (fills, recentFills, allFills, /fills). */
export const FILL_ROWS_DEFAULT_LIMIT = 100;
/** Stored fills per GraphQL page (User.fills, Builder.fills, Query.fills) when `first` is not given. */
export const FILLS_PAGE_DEFAULT = 100;
/** Liquidations of a user per answer: the default and the most. */
export const LIQUIDATIONS_DEFAULT_LIMIT = 100;
export const MAX_LIQUIDATIONS = 500;
/** Orders per page of User.orders (historicalOrders allows 5000), and the default. */
export const MAX_ORDERS_PAGE = 2000;
export const ORDERS_PAGE_DEFAULT = 100;
/** Users per /info clearinghouseState of several users. */
export const MAX_CLEARINGHOUSE_USERS = 50;
