/** The reports `npm run api:report` writes: one per subpath in package.json `exports`. */
export declare const API_FOLDER: string;
export declare function buildApiReports(): { file: string; specifier: string; content: string }[];
