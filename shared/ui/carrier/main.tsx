import { render } from 'preact';
import '../common/base.css';
import './carrier.css';
import { CarrierApp } from './app';

render(<CarrierApp />, document.getElementById('app')!);
