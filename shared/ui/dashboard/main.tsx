import { render } from 'preact';
import '../common/base.css';
import './dashboard.css';
import { DashboardApp } from './app';

render(<DashboardApp />, document.getElementById('app')!);
