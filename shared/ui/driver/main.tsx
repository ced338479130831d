import { render } from 'preact';
import '../common/base.css';
import './driver.css';
import { DriverApp } from './app';
import { registerServiceWorker } from './offline/register';

render(<DriverApp />, document.getElementById('app')!);
registerServiceWorker();
