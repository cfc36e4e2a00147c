export { bannerRoutes } from './banners.routes.js';
