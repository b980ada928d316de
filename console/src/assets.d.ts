/** Style sheets imported for their side effect: vite bundles them into the console's CSS file. */
declare module "*.css";
